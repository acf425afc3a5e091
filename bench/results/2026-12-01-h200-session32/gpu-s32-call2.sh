#!/usr/bin/env bash
# Session 32, call 2 (nvidia-h200; carry bundle-x): the walk's length against its tail (walk-length-sets.txt):
# wan13b's and wan14b's per-frame LayerNorm cases (WHERE "layout == 'bf1c' && norm == 'layer'") under walks
# of 24-64 tokens (wan13b) and 32-128 (wan14b), the task read from variants/nss-task-walk-lengths.json (WALK's
# list widened), each set against the committed config, A X1..Xn Xn..X1 A.
# Back: summary.txt (printed last), sweeps.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >> $S
W=$OUT/sweeps; mkdir -p $W
sweep() {  # name task shape sets [where]
  OUT=$W/$1 WHERE="${5:-}" SPEC=${SPEC:-} RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh $2 $3 $4 > /dev/null 2>&1
  echo "== $1 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $W/$1/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
export SPEC=$D/variants/nss-task-walk-lengths.json
sweep wan13b norm_scale_shift wan13b-480p $D/walk-length-sets.txt "layout == 'bf1c' && norm == 'layer'"
sweep wan14b norm_scale_shift wan14b-480p $D/walk-length-sets.txt "layout == 'bf1c' && norm == 'layer'"
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
