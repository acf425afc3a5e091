#!/usr/bin/env bash
# On the GPU machine (carry ["bundle", "peers"]): the H200 proof of the per-device issue in one
# call: tune rmsnorm on this GPU (evolve, bf16) and write its config file, write this GPU's
# gate-baseline entry from a fresh run and gate against it, then scripts/gpu-check.sh (GPU
# tests, cold/warm run with the FlashInfer column, torch, run-to-run agreement) and ncu on the
# mid-size and small shapes. Everything lands in $OUT/all.tgz; $OUT/summary.txt is printed.
#   OUT=out scripts/gpu-h200.sh
# Knobs: TUNE (1; 0 keeps the committed config), BUDGET (30%), TUNE_TIME (240 s),
# NCU_SHAPES ("text-512 flux1-single qwen-image"; "none" skips ncu). A last run with
# --l2-flush read is kept beside the default one (bench/RESULTS.md compares the two).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
B=bundle/bin
export AKO_CACHE_DIR=${AKO_CACHE_DIR:-/tmp/ako-cache}
S="$OUT/summary-h200.txt"
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$S"; }

if [ "${TUNE:-1}" = 1 ]; then
step "ako tune task rmsnorm --strategy evolve --budget ${BUDGET:-30%} --write-config"
$B/ako tune task rmsnorm --strategy evolve --budget "${BUDGET:-30%}" --dtypes bf16 --max-time 0.01 --warmup-ms 5 \
  --trials 1 --time "${TUNE_TIME:-240}" --write-config --db "$OUT/tune-h200.jsonl" --json "$OUT/tune-h200.json" \
  --no-progress > "$OUT/tune.txt" 2>&1
echo "tune rc $?" | tee -a "$S"; grep -E "^(wrote|TUNE|STOPPED|PIPELINE)" "$OUT/tune.txt" | tee -a "$S"
fi
cp solution/rmsnorm/configs/device_name=NVIDIA_H200.json "$OUT/config-h200.json" 2>/dev/null

step "ako gate --update-baseline (this GPU's entry)"
$B/ako gate --update-baseline --baseline bench/baseline.json --no-progress > "$OUT/gate-update.txt" 2>&1
echo "gate --update-baseline rc $?" | tee -a "$S"; tail -3 "$OUT/gate-update.txt" | tee -a "$S"
cp bench/baseline.json "$OUT/baseline.json"
step "ako gate against it"
$B/ako gate --baseline bench/baseline.json --no-progress > "$OUT/gate.txt" 2>&1
echo "gate rc $?" | tee -a "$S"; tail -2 "$OUT/gate.txt" | tee -a "$S"

step "scripts/gpu-check.sh"
OUT="$OUT/check" bash scripts/gpu-check.sh > "$OUT/gpu-check.log" 2>&1
cat "$OUT/check/summary.txt" >> "$S"

step "ako run task rmsnorm --l2-flush read"
$B/ako run task rmsnorm --l2-flush read --no-checks --no-progress --json "$OUT/run-read-flush.json" > "$OUT/run-read-flush.txt" 2>&1
echo "rc $?" | tee -a "$S"

if [ "${NCU_SHAPES:-}" != none ]; then
step "scripts/gpu-ncu.sh"
OUT="$OUT/ncu" bash scripts/gpu-ncu.sh rmsnorm bf16 ${NCU_SHAPES:-text-512 flux1-single qwen-image} >> "$S" 2>&1
rm -f "$OUT"/ncu/*.ncu-rep
fi

(cd "$OUT" && tar -czf all.tgz --exclude=all.tgz --exclude=summary-h200.txt . )
find "$OUT" -mindepth 1 -not -name all.tgz -not -name summary-h200.txt -delete
cat "$S"
