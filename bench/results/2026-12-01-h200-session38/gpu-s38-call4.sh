#!/usr/bin/env bash
# Session 38, call 4: norm_full.cu / norm_full.py (norm_scale_shift written plainly, text-512-cfg bf16, the
# broadcast layouts) between two `ako run`s of the same 24 cases with --size-copy (ako's kernels and a copy
# of each case's bytes).
#   OUT=$OUT bash bench/results/2026-12-01-h200-session38/gpu-s38-call4.sh   (carry bundle-x)
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-out}
D=bench/results/2026-12-01-h200-session38
mkdir -p "$OUT/runs"
scripts/gpu-unpack-bundle.sh --if-needed >"$OUT/unpack.txt" 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$OUT/runs/device.txt" 2>&1
export AKO_CACHE_DIR=/tmp/ako-cache
W="layout != 'lc' && layout != 'blc'"
run() { timeout 90 bundle/bin/ako run task norm_scale_shift --shapes text-512-cfg --dtypes bf16 --where "$W" --size-copy \
          --json "$OUT/runs/$1.json" >"$OUT/runs/$1.txt" 2>&1; echo "ako run $1 rc $?" >>"$OUT/runs/rc.txt"; }
run ako1
timeout 200 python3 $D/norm_full.py $D/norm_full.cubin --json "$OUT/norm_full.json" >"$OUT/norm_full.txt" 2>&1
echo "norm_full rc $?" >>"$OUT/runs/rc.txt"
run ako2
python3 $D/norm_full_table.py "$OUT/norm_full.json" "$OUT/runs/ako1.json" "$OUT/runs/ako2.json" >"$OUT/table.txt" 2>&1
tar cJf "$OUT/runs.tar.xz" -C "$OUT" runs && rm -rf "$OUT/runs"
cat "$OUT/norm_full.txt" "$OUT/table.txt"
tar xJf "$OUT/runs.tar.xz" -O runs/rc.txt runs/device.txt
