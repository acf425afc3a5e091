#!/usr/bin/env bash
# Session 14, call 3 (carry .sglang-deps/py312-3, .sgl-proof, bundle, peers; started while the deps
# calls' machine is warm, after `OUT=$OUT bash bench/results/2026-11-29-h200-session13/gpu-s13-deps.sh`
# with .sglang-deps/py312-1, then -2): the final text-512-cfg configs of norm_scale_shift
# (iteration 11) and residual_gate_norm_scale_shift (iteration 12) against the committed ones,
# `ako run --shapes text-512-cfg` ABBAAB (committed as device "BEFORE"); `ako gate
# --update-baseline --threshold 5 --tasks <both>` (the gate's verdict on every shape, and the new
# kernel instances budgeted); then both as `ako port` wrote them into SGLang, every case checked
# through tvm-ffi, and timed in one process against SGLang's CuTe DSL kernels and torch
# (scripts/sglang-gpu-check.sh --engine-timing).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=bench/results/2026-11-29-h200-session14
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; drc=$?; echo "deps rc=$drc: $(tail -1 $L/deps.txt)" >> $S
run() {  # $1 task, $2 tag, $3 device
  timeout 120 $A run task $1 --shapes text-512-cfg --device "$3" --no-progress --json $OUT/runs/$1-$2.json > $L/$1-run-$2.txt 2>&1
  echo "$1 $2 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/$1-run-$2.txt | tr '\n' ' ')" >> $S
}
for T in norm_scale_shift residual_gate_norm_scale_shift; do
  short=$([ $T = norm_scale_shift ] && echo nss || echo rgnss)
  cp $R/$short-config-committed.json "solution/$T/configs/device_name=BEFORE.json"
  run $T before-1 BEFORE; run $T after-1 "NVIDIA H200"; run $T after-2 "NVIDIA H200"
  run $T before-2 BEFORE; run $T before-3 BEFORE; run $T after-3 "NVIDIA H200"
  rm -f "solution/$T/configs/device_name=BEFORE.json"
done
timeout 240 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
  --tasks norm_scale_shift,residual_gate_norm_scale_shift --no-progress > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep -E '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline-after.json
start=$(date +%s)
DEPS=""; [ $drc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
OUT=$OUT/port timeout ${LIMIT:-300} scripts/sglang-gpu-check.sh --task norm_scale_shift --task residual_gate_norm_scale_shift \
  --no-wrapper --engine-timing $DEPS > $L/port.txt 2>&1
echo "port + engine timing rc=$? $(( $(date +%s) - start ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
if ls $OUT/port/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $OUT/port/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown $OUT/port/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-300 >> $S
  xz -9 $OUT/port/engine-timing-*.json
  mv $OUT/port/engine-timing-*.json.xz $OUT/
fi
date -u +%FT%TZ > $L/end.txt
[ -d $OUT/port ] && mv $OUT/port $L/
tar cJf $OUT/call3.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
