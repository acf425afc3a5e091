#!/usr/bin/env bash
# Session 12, call 3c (carry .sglang-deps/py312-3, peers and bundle-lite: bundle's ako, ako-worker
# and libfmt, to stay under 64 MiB; started while call 3b's machine is warm): the CuTe DSL
# packages unpacked; full ako runs of the two norm fusions with iteration 8's configs, then SGLang
# 0.5.23's CuTe DSL kernels of both timed from Python right after, on the same machine
# (bench/peer_timing.py: CUPTI through torch.profiler, cold L2, IQM of 100) and joined per case
# (scripts/compare_torch.py; variant_table.py for the rows behind).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session12
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
start=$(date +%s)
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  timeout 150 bundle-lite/bin/ako run task $task --no-progress --json $OUT/runs/$task-new-1.json > $L/$task-run.txt 2>&1
  echo "$task run rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^SPEEDUP' $L/$task-run.txt | tr '\n' ' ')" >> $S
done
if [ $rc -eq 0 ]; then
  for task in norm_scale_shift residual_gate_norm_scale_shift; do
    t0=$(date +%s)
    timeout 240 python3 bench/peer_timing.py $task --peers sglang_cute --tolerance 5e-2 5e-2 --deps /tmp/sglang-deps/site \
      --json $OUT/peers-$task.json > $L/peers-$task.txt 2>&1
    echo "peer_timing $task rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
    python3 scripts/compare_torch.py $OUT/runs/$task-new-1.json $OUT/peers-$task.json > $OUT/$task-table.txt 2>&1
    grep -E "^slower|^[a-z]" $OUT/$task-table.txt | tail -3 | cut -c1-400 >> $S
  done
  python3 $D/variant_table.py $OUT/runs new $OUT/peers-norm_scale_shift.json $OUT/peers-residual_gate_norm_scale_shift.json \
    > $OUT/vs-cute.txt 2>&1
  python3 - $OUT/vs-cute.txt >> $S <<'PY'
import re, sys
task = None; n = behind = 0; worst = []
for line in open(sys.argv[1]):
    if line.startswith("=="):
        if task: print(f"{task}: {n} cases with a CuTe time, behind on {behind}: {sorted(worst)[:8]}")
        task = line.split(":")[0][3:]; n = behind = 0; worst = []; continue
    m = re.search(r"sglang_cute (\d+\.\d+): base (\d\.\d\d)x", line)
    if m:
        n += 1
        if float(m.group(2)) < 1.0: behind += 1; worst.append((float(m.group(2)), line[:70].strip()))
if task: print(f"{task}: {n} cases with a CuTe time, behind on {behind}: {sorted(worst)[:8]}")
PY
fi
cat $S
xz -9 $OUT/peers-*.json $OUT/runs/*.json 2>/dev/null
tar cJf $OUT/call3c.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
