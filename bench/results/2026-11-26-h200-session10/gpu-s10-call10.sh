#!/usr/bin/env bash
# Session 10, call 10 (carry .sglang-deps/py312-3, peers and bundle without its test and bench
# binaries, to stay under 64 MiB; started while call 9b's machine is warm): the CuTe DSL packages
# unpacked; full ako runs of the two norm fusions, kept in /tmp for call 11; SGLang 0.5.23's CuTe
# DSL kernels of norm_scale_shift timed from Python (bench/peer_timing.py: CUPTI through
# torch.profiler, cold L2) and joined per case with ako's run (scripts/compare_torch.py).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L /tmp/s10runs; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
for task in norm_scale_shift residual_gate_norm_scale_shift; do
  timeout 150 bundle/bin/ako run task $task --no-progress --json /tmp/s10runs/$task-run.json > $L/$task-run.txt 2>&1
  echo "$task run rc=$?: $(grep -E '^CORRECT|^SPEEDUP' $L/$task-run.txt | tr '\n' ' ')" >> $S
  cp /tmp/s10runs/$task-run.json $OUT/
done
if [ $rc -eq 0 ]; then
  task=norm_scale_shift; t0=$(date +%s)
  timeout 330 python3 bench/peer_timing.py $task --peers sglang_cute --tolerance 5e-2 5e-2 --deps /tmp/sglang-deps/site \
    --json $OUT/peers-$task.json > $L/peers-$task.txt 2>&1
  echo "peer_timing $task rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
  python3 scripts/compare_torch.py /tmp/s10runs/$task-run.json $OUT/peers-$task.json > $OUT/$task-table.txt 2>&1
fi
cat $S
xz -9 $OUT/*.json 2>/dev/null
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
