#!/usr/bin/env bash
# Session 14, call 4 (carry .sglang-deps/py312-3, .sgl-proof, peers; after the two deps calls, as
# call 3): call 3's last step again with the fix to sglang_port_gpu.py's class prediction
# (it did not know `dtype`): norm_scale_shift and residual_gate_norm_scale_shift as `ako port`
# wrote them into SGLang, every case checked through tvm-ffi, then timed in one process against
# SGLang's CuTe DSL kernels and torch (scripts/sglang-gpu-check.sh --engine-timing).
set -uo pipefail
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
scripts/gpu-sglang-deps.sh > $L/deps.txt 2>&1; drc=$?; echo "deps rc=$drc: $(tail -1 $L/deps.txt)" >> $S
start=$(date +%s)
DEPS=""; [ $drc -eq 0 ] && DEPS="--deps /tmp/sglang-deps/site"
OUT=$OUT/port timeout ${LIMIT:-300} scripts/sglang-gpu-check.sh --task norm_scale_shift --task residual_gate_norm_scale_shift \
  --no-wrapper ${TIMING---engine-timing} $DEPS > $L/port.txt 2>&1
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
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
