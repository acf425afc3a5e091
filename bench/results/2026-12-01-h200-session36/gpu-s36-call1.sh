#!/usr/bin/env bash
# Session 36, call 1 (nvidia-h200; carry bundle-x). qknorm's wan13b per-head cases sit on the 95% video bar
# (94.6-95.2% of the 1 GiB copy between sessions; ITERATIONS.md qknorm iterations 5 and 7). Their q and k are
# strided views of qkv (v's 3 KB skipped in every 9 KB row). Question: how near is the kernel to what its layout
# allows? layout_ceiling.py times, interleaved under the memset flush, the committed per-head and across-heads
# kernels (nvcc build of solution/qknorm/qknorm.cuh at the wan13b class) beside in-place read-and-write-back
# kernels on the same strided bytes (no arithmetic), the same bytes contiguous in place, a copy kernel and a memcpy.
# Prediction (before the run): the strided identity at 97-98% of the 1 GiB copy (a little under the contiguous
# identity), the per-head kernel 2-3% under it: the gap is the kernel's, not the layout's.
# Then ako's own run of qknorm on wan13b, three times (the bar's count, --size-copy).
# Back: summary.txt (printed last), ceiling.txt, qknorm-*.txt / .json.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session36
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
timeout 240 python3 $D/layout_ceiling.py $D/layout_ceiling.cubin --samples 100 --rounds 3 > $OUT/ceiling.txt 2>&1
echo "layout_ceiling rc=$?" >> $S
tail -12 $OUT/ceiling.txt >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
for r in 1 2 3; do
  timeout 150 bundle/bin/ako run task qknorm --shapes wan13b-480p --no-checks --size-copy --no-progress \
    --device "NVIDIA H200" --json $OUT/qknorm-$r.json > $OUT/qknorm-$r.txt 2>&1
  echo "qknorm run $r rc=$?: $(grep -E '^CORRECT' $OUT/qknorm-$r.txt | cut -c1-60)" >> $S
  grep -E "wan13b" $OUT/qknorm-$r.txt | cut -c1-230 >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
