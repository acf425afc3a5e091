#!/usr/bin/env bash
# Session 10, call 11 (carry peers; started while call 10's machine is warm): SGLang 0.5.23's
# CuTe DSL kernels of residual_gate_norm_scale_shift timed from Python as in call 10, joined per
# case with call 10's ako run of the task (kept in /tmp on that machine).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
task=residual_gate_norm_scale_shift
if [ $rc -eq 0 ] && [ -f /tmp/s10runs/$task-run.json ]; then
  t0=$(date +%s)
  timeout 540 python3 bench/peer_timing.py $task --peers sglang_cute --tolerance 5e-2 5e-2 --deps /tmp/sglang-deps/site \
    --json $OUT/peers-$task.json > $L/peers-$task.txt 2>&1
  echo "peer_timing $task rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
  python3 scripts/compare_torch.py /tmp/s10runs/$task-run.json $OUT/peers-$task.json > $OUT/$task-table.txt 2>&1
else
  echo "not run: the deps or call 10's ako run are not on this machine (a fresh machine?)" >> $S
fi
cat $S
xz -9 $OUT/*.json 2>/dev/null
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
