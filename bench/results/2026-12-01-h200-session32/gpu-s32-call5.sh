#!/usr/bin/env bash
# Session 32, call 5 (nvidia-h200; carry bundle-x): the walk held to 10 blocks an SM (walk-mb-sets.txt,
# MIN_BLOCKS 10) on wan13b's per-frame cases (WHERE "layout == 'bf1c'"), each set against the committed
# config, A X1..Xn Xn..X1 A (scripts/gpu-sweep-sets.sh).
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
OUT=$W/wan13b WHERE="layout == 'bf1c'" RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh norm_scale_shift wan13b-480p $D/walk-mb-sets.txt > /dev/null 2>&1
echo "== wan13b ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/wan13b/summary.txt | cut -c1-2500 >> $S
grep '^run ' $W/wan13b/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
