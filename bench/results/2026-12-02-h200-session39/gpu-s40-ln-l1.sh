#!/usr/bin/env bash
# Prepared in session 39 for a later call (carry bundle-x): ln-l1-priority-sets.txt's three sweeps (its header says
# what and why), then the variant's SASS loads for one class. Back: summary.txt (printed last), sweeps.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
R=bench/results/2026-12-02-h200-session39
S=$OUT/summary.txt; : > "$S"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader >> "$S"
for shape in qwen-image flux2-single zimage; do
  OUT=$OUT/sweeps/$shape WHERE=affine SOLUTION=$R/variants/layernorm-l1-priority.cuh \
    SPEC=$R/variants/layernorm-task-l1-priority.json timeout 170 scripts/gpu-sweep-sets.sh layernorm "$shape" \
    $R/ln-l1-priority-sets.txt > "$OUT/sweep-$shape.log" 2>&1
  echo "== $shape rc=$?" >> "$S"; tail -n 12 "$OUT/sweeps/$shape/summary.txt" 2>/dev/null >> "$S"
done
# The priorities in the machine code: every cubin ako cached for the variant, its LDGs counted by form.
for f in $(grep -l "evict_last" $(find "${AKO_CACHE_DIR:-/tmp/ako-cache}" -name '*.ptx' 2>/dev/null) 2>/dev/null | head -3); do
  echo "SASS of ${f%.ptx}.cubin: $(cuobjdump -sass "${f%.ptx}.cubin" | grep -o 'LDG[A-Z0-9._]*' | sort | uniq -c | tr '\n' ' ')" >> "$S"
done
# Whether the priorities move L1's hit rate: ncu on qwen-image's bf16 affine kernel at X_L1 1 (the class), 6 and 5, one
# launch each after a warm-up, no clock control (as layernorm iteration 16 ran it).
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p "$OUT/sweeps/ncu"
for xl in 1 6 5; do
  r=$OUT/sweeps/ncu/x$xl
  timeout 100 "$NCU" --clock-control none --target-processes all --kernel-name regex:layernorm_kernel --launch-skip 1 \
    --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy -f -o "$r" \
    bundle/bin/ako run "$R/variants/layernorm-task-l1-priority.json" --solution "$R/variants/layernorm-l1-priority.cuh" \
    --device "NVIDIA H200" --shapes qwen-image --dtypes bf16 --where affine --param X_L1=$xl --no-cupti --no-checks \
    --trials 1 --max-time 0.05 --case-timeout 300 --no-progress > "$r.log" 2>&1
  echo "ncu qwen-image bf16 affine X_L1=$xl rc=$?" >> "$S"
  "$NCU" --import "$r.ncu-rep" --csv --page details > "$r.csv" 2>/dev/null
  python3 scripts/ncu_details.py "$r.csv" >> "$S" 2>&1
  python3 -c 'import csv, sys; print("  " + "; ".join(r["Metric Name"] + ": " + r["Metric Value"] + "%" for r in csv.DictReader(open(sys.argv[1])) if r.get("Metric Name") in ("L1/TEX Hit Rate", "L2 Hit Rate")))' "$r.csv" >> "$S" 2>&1
done
mv "$OUT"/sweep-*.log "$OUT/sweeps/" 2>/dev/null
tar cJf "$OUT/sweeps.tar.xz" -C "$OUT" sweeps && rm -rf "$OUT/sweeps"
cat "$S"
