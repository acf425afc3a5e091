#!/usr/bin/env bash
# Session 34, call 10 (nvidia-h200; carry bundle-x): zimage-fusion-sets.txt on both norm fusions' zimage cases,
# A X..X A (scripts/gpu-sweep-sets.sh). Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/runs; mkdir -p $R
for t in norm_scale_shift residual_gate_norm_scale_shift; do
  OUT=$R/$t RUN_TIMEOUT=60 scripts/gpu-sweep-sets.sh $t zimage $D/zimage-fusion-sets.txt > /dev/null 2>&1
  echo "== $t zimage ($(( $(date +%s) - T0 )) s)" >> $S
  grep -v '^run ' $R/$t/summary.txt | cut -c1-900 >> $S
  grep '^run ' $R/$t/summary.txt | grep -v 'rc=0.*CORRECT: yes' | cut -c1-160 >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
