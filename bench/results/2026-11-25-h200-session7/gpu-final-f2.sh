#!/usr/bin/env bash
# Final call F2 (session 7): SGLang's CuTe DSL deps (part 2), ako validate with the engine's own
# JIT kernels (issue 18), the port proof of the tasks changed this session, gated_act and
# qknorm_rope runs. Carry [".sglang-deps/py312-2", "bundle", "peers", ".sgl-proof"].
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
export AKO_CACHE_DIR=/tmp/ako-cache
S=$OUT/f2-summary.txt
scripts/gpu-sglang-deps.sh > "$OUT/deps.txt" 2>&1; echo "deps rc $?" | tee -a "$S"
bundle/bin/ako run task gated_act --no-progress --json "$OUT/gated_act-run.json" > "$OUT/gated_act-run.txt" 2>&1
echo "gated_act rc $?" | tee -a "$S"; grep -E "^(CORRECT|SPEEDUP|BASELINE)" "$OUT/gated_act-run.txt" | tee -a "$S"
bundle/bin/ako run task qknorm_rope --no-progress --json "$OUT/qknorm_rope-run.json" > "$OUT/qknorm_rope-run.txt" 2>&1
echo "qknorm_rope rc $?" | tee -a "$S"; grep -E "^(CORRECT|SPEEDUP|BASELINE)" "$OUT/qknorm_rope-run.txt" | tee -a "$S"
OUT=$OUT/v MODELS="flux1 wan14b hunyuan" STEPS=3 timeout 330 scripts/gpu-validate.sh > "$OUT/validate-console.txt" 2>&1
echo "validate rc $?" | tee -a "$S"
OUT=$OUT/sgl timeout 150 scripts/sglang-gpu-check.sh --task gated_act --task qknorm --task qknorm_rope > "$OUT/sgl-console.txt" 2>&1
echo "sglang-gpu-check rc $?" | tee -a "$S"; tail -3 "$OUT/sgl-console.txt" | tee -a "$S"
python3 exp/summarize.py "$OUT/gated_act-run.json" "$OUT/qknorm_rope-run.json" > "$OUT/summary-runs.txt" 2>&1
(cd "$OUT" && tar czf /tmp/f2.tgz . && mv /tmp/f2.tgz all-f2.tgz)
grep -E "VALIDATE|step vs engine|^  [a-z_]+: microbench|fallback|torch \(" "$OUT/v/summary.txt" | head -40
cat "$S"
