#!/usr/bin/env bash
# Session 10, call 7: the ported kernels of norm_scale_shift, residual_gate_norm_scale_shift, rope
# and qknorm_rope with this session's configs (qknorm_rope's split layout, rope's d256 class),
# built as SGLang's JIT builds them, loaded through tvm-ffi and checked on torch tensors (carry
# .sgl-proof); rope's gate entry rewritten for its d256 class; then the whole gate.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
OUT=$OUT/port timeout 360 scripts/sglang-gpu-check.sh --task norm_scale_shift --task residual_gate_norm_scale_shift \
  --task rope --task qknorm_rope > $L/port-proof.log 2>&1
echo "port proof rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
tail -4 $L/port-proof.log >> $S
timeout 100 bundle/bin/ako gate --update-baseline --threshold 5 --tasks rope --baseline bench/baseline.json > $L/gate-update-rope.txt 2>&1
echo "gate --update-baseline --tasks rope rc=$?: $(grep '^GATE' $L/gate-update-rope.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
t0=$(date +%s)
timeout 170 bundle/bin/ako gate --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate rc=$? ($(( $(date +%s)-t0 )) s): $(grep '^GATE' $L/gate.txt)" >> $S
grep -E "^  FAIL" $L/gate.txt | head >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs port 2>/dev/null; rm -rf $L $OUT/port
