#!/usr/bin/env bash
# Session 9, call 7: after the class-choice fix (a shape keeps the class whose `when` takes it,
# tuned or not): full runs of both norm fusions with the committed configs, their GPU tests, the
# gate entries of both tasks rewritten and re-checked.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
T=norm_scale_shift,residual_gate_norm_scale_shift
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  timeout 200 bundle/bin/ako run task $task --no-progress --json $OUT/$task-run.json > $L/$task-run.txt 2>&1
  echo "$task run rc=$?: $(grep -E '^CORRECT|^SPEEDUP' $L/$task-run.txt | tr '\n' ' ')" >> $S
done
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 bundle/bin/ako_gpu_tests \
  --gtest_filter='NormScaleShift.*:ResidualGateNormScaleShift.*' > $L/family-tests.log 2>&1
echo "family GPU tests rc=$?: $(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' $L/family-tests.log | tr '\n' ' ')" >> $S
timeout 200 bundle/bin/ako gate --update-baseline --threshold 5 --tasks $T --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 200 bundle/bin/ako gate --tasks $T --baseline bench/baseline.json > $L/gate-check.txt 2>&1
echo "gate rc=$?: $(grep '^GATE' $L/gate-check.txt)" >> $S
grep -E "^  FAIL" $L/gate-update.txt $L/gate-check.txt | head -10 >> $S
python3 - >> $S <<'PY'
import json, os, collections
for t in ["norm_scale_shift", "residual_gate_norm_scale_shift"]:
    try: j = json.load(open(os.path.join(os.environ["OUT"], f"{t}-run.json")))
    except Exception as e: print(t, "no json", e); continue
    by = collections.defaultdict(list)
    for c in j["cases"]:
        if c["kind"] == "compare" and c["verdict"] == "correct": by[c["shape"]].append((c["pct_copy_bw"], c["solution_time"]["iqm_us"]))
    print(t, "% of copy per shape (min-max):", ", ".join(f"{s} {min(p for p, _ in v):.1f}-{max(p for p, _ in v):.1f}" for s, v in sorted(by.items())))
PY
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
