#!/usr/bin/env bash
# Session 32, call 11 (nvidia-h200; no carry): the SASS of the two kernels call 10 profiled, from its reports
# (call10/ncu.tar.xz), as ncu's source page prints it, so the two can be compared instruction by instruction.
# Back: sass.tar.xz, summary.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
D=bench/results/2026-12-01-h200-session32
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p /tmp/c10 $OUT/sass && tar -xJf $D/call10/ncu.tar.xz -C /tmp/c10
for k in ako triton; do
  "$NCU" --import /tmp/c10/ncu/$k.ncu-rep --page source --csv --print-source sass > $OUT/sass/$k.csv 2> $OUT/sass/$k.err
  echo "$k rc=$? lines $(wc -l < $OUT/sass/$k.csv)" >> $S
done
tar cJf $OUT/sass.tar.xz -C $OUT sass && rm -rf $OUT/sass
cat $S
