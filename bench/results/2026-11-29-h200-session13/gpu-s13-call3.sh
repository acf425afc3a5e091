#!/usr/bin/env bash
# Session 13, call 3 (carry .sglang-deps/py312-3, .sgl-proof and peers; started while call 2's
# machine is warm): the CuTe DSL packages unpacked; then issue 14's two norm fusions as `ako port`
# wrote them into SGLang, built with SGLang's JIT flags and loaded through tvm-ffi (every compare,
# check and extra case against the float64 reference first), then timed in the same process as
# SGLang 0.5.23's own CuTe DSL kernels and torch eager, samples interleaved, CUPTI, cold L2, IQM of
# 100 (scripts/sglang-gpu-check.sh --engine-timing); tables by scripts/engine_table.py.
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; rc=$?; echo "deps rc=$rc: $(tail -1 $L/deps.txt)" >> $S
start=$(date +%s)
TASKS=${TASKS:-"norm_scale_shift residual_gate_norm_scale_shift"}
DEPS=""; [ $rc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
OUT=$OUT/port timeout ${LIMIT:-520} scripts/sglang-gpu-check.sh $(printf -- '--task %s ' $TASKS) --no-wrapper --engine-timing $DEPS \
  > $L/port.txt 2>&1
echo "port + engine timing rc=$? $(( $(date +%s) - start ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
grep -E '^tvm_ffi|copy bandwidth|cases timed' $L/port.txt >> $S
if ls $OUT/port/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $OUT/port/engine-timing-*.json > $OUT/tables.txt 2>&1
  python3 scripts/engine_table.py --markdown $OUT/port/engine-timing-*.json > $OUT/tables.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $OUT/tables.txt | cut -c1-300 >> $S
  xz -9 $OUT/port/engine-timing-*.json
  mv $OUT/port/engine-timing-*.json.xz $OUT/
fi
date -u +%FT%TZ > $L/end.txt
[ -d $OUT/port ] && mv $OUT/port $L/
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
