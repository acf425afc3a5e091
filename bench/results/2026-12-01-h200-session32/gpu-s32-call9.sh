#!/usr/bin/env bash
# Session 32, call 9 (nvidia-h200; carry bundle-x): walk-waves-sets.txt (the walk at 7, 9, 13 and 25 tokens
# a group, 10 blocks an SM) on wan13b's per-frame LayerNorm cases, against the committed config (WALK 8),
# A X1..Xn Xn..X1 A; the task read from variants/nss-task-walk-waves.json (WALK's list widened).
# Back: summary.txt (printed last), sweeps.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
W=$OUT/sweeps; mkdir -p $W
OUT=$W/wan13b WHERE="layout == 'bf1c' && norm == 'layer'" SPEC=$D/variants/nss-task-walk-waves.json RUN_TIMEOUT=60 \
  scripts/gpu-sweep-sets.sh norm_scale_shift wan13b-480p $D/walk-waves-sets.txt > /dev/null 2>&1
echo "== wan13b ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/wan13b/summary.txt | cut -c1-1800 >> $S
grep '^run ' $W/wan13b/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
