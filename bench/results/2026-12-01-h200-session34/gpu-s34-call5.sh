#!/usr/bin/env bash
# Session 34, call 5 (nvidia-h200; carry bundle-x). Two sweeps, A X1..Xn Xn..X1 A (scripts/gpu-sweep-sets.sh):
# 1. ln-affine-sets.txt: layernorm's affine cases of qwen-image, flux1-single and flux2-single (--where affine);
# 2. res-flux1-sets.txt: the residual fusion's flux1-single cases at exact fits of 3072 columns.
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/runs; mkdir -p $R
sweep() {  # task shape sets where
  OUT=$R/$1-$2 WHERE="$4" RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh $1 $2 $D/$3 > /dev/null 2>&1
  echo "== $1 $2 ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $R/$1-$2/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $R/$1-$2/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
}
for s in qwen-image flux1-single flux2-single; do sweep layernorm $s ln-affine-sets.txt affine; done
sweep residual_gate_norm_scale_shift flux1-single res-flux1-sets.txt ""
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
