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
mv "$OUT"/sweep-*.log "$OUT/sweeps/" 2>/dev/null
tar cJf "$OUT/sweeps.tar.xz" -C "$OUT" sweeps && rm -rf "$OUT/sweeps"
cat "$S"
