#!/usr/bin/env bash
# Session 38, call 3: the time floor of issue 14's 512-token cases (norm_floor.cu / norm_floor.py), then
# ako's four norm / modulation tasks on the same two shapes in `ako run --size-copy` (ako's kernels and a
# copy of each case's bytes, in the same call).
#   OUT=$OUT bash bench/results/2026-12-01-h200-session38/gpu-s38-call3.sh   (carry bundle-x)
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-out}
D=bench/results/2026-12-01-h200-session38
mkdir -p "$OUT/runs"
scripts/gpu-unpack-bundle.sh --if-needed >"$OUT/unpack.txt" 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$OUT/runs/device.txt" 2>&1
export AKO_CACHE_DIR=/tmp/ako-cache
t0=$(date +%s)
timeout 260 python3 $D/norm_floor.py $D/norm_floor.cubin --samples ${SAMPLES:-100} --rounds 3 --json "$OUT/norm_floor.json" \
  >"$OUT/norm_floor.txt" 2>&1
frc=$?
t1=$(date +%s)
for t in layernorm scale_shift norm_scale_shift residual_gate_norm_scale_shift; do
  timeout 75 bundle/bin/ako run task $t --shapes text-512,text-512-cfg --size-copy --json "$OUT/runs/$t.json" \
    >"$OUT/runs/$t.txt" 2>&1
  echo "$t rc $?" >>"$OUT/runs/rc.txt"
done
t2=$(date +%s)
tar cJf "$OUT/runs.tar.xz" -C "$OUT" runs && rm -rf "$OUT/runs"
{
  echo "norm_floor rc $frc ($((t1 - t0)) s); ako runs $((t2 - t1)) s"
  cat "$OUT/norm_floor.txt"
} >"$OUT/summary.txt"
tar xJf "$OUT/runs.tar.xz" -O runs/rc.txt runs/device.txt >>"$OUT/summary.txt" 2>/dev/null
cat "$OUT/summary.txt"
