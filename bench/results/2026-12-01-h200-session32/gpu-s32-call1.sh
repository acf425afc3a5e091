#!/usr/bin/env bash
# Session 32, call 1 (nvidia-h200; carry bundle-x): launch-point sweeps, each set against the committed
# config, A X1..Xn Xn..X1 A (scripts/gpu-sweep-sets.sh):
# 1. walk-lean-sets.txt: norm_scale_shift's walk at points with fewer registers a thread, wan13b's per-frame
#    LayerNorm cases (ITERATIONS.md norm_scale_shift iteration 41's Next);
# 2. ln-zimage-sets.txt: layernorm's zimage cases (the no-affine 16-bit ones behind SGLang's Triton kernel).
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
  OUT=$W/$1 WHERE="${5:-}" RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh $2 $3 $4 > /dev/null 2>&1
  echo "== $1 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$1/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $W/$1/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
sweep walk-lean norm_scale_shift wan13b-480p $D/walk-lean-sets.txt "layout == 'bf1c' && norm == 'layer'"
sweep ln-zimage layernorm zimage $D/ln-zimage-sets.txt
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
