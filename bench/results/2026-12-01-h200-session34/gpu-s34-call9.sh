#!/usr/bin/env bash
# Session 34, call 9 (nvidia-h200; carry bundle-x): walk-regs-sets.txt, norm_scale_shift's wan13b walk cases with the
# next token's row in registers (variants/nss-walk-regs.cuh, every run through --solution: at the class's DEPTH 4
# the variant is the committed kernel's machine code, NVRTC .text compared on the CPU), A X..X A.
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/runs; mkdir -p $R
OUT=$R/walk SPEC=$D/variants/nss-task-walk-regs.json SOLUTION=$D/variants/nss-walk-regs.cuh \
  WHERE="layout == 'bf1c' && norm == 'layer' && (affine || mod_dtype == 'fp32')" RUN_TIMEOUT=100 \
  scripts/gpu-sweep-sets.sh norm_scale_shift wan13b-480p $D/walk-regs-sets.txt > /dev/null 2>&1
grep -v '^run ' $R/walk/summary.txt | cut -c1-1500 >> $S
grep '^run ' $R/walk/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
grep '^run ' $R/walk/summary.txt | cut -c1-200 >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
