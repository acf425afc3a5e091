#!/usr/bin/env bash
# Session 13, call 7 (carry bundle, .sgl-proof of scale_shift with call 6's config, peers): the
# ported scale_shift with the split class through SGLang's JIT and tvm-ffi (every case), timed in
# that process against SGLang's Triton kernel and torch (--engine-timing); then the scale_shift
# gate entry rewritten from this machine (`ako gate --update-baseline --tasks scale_shift`: it
# refuses when a case is slower beyond threshold and noise) and checked again.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
t0=$(date +%s)
OUT=$OUT/port timeout 300 scripts/sglang-gpu-check.sh --task scale_shift --no-wrapper --engine-timing > $L/port.txt 2>&1
echo "port + engine timing rc=$? $(( $(date +%s) - t0 ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
if ls $OUT/port/engine-timing-*.json > /dev/null 2>&1; then
  python3 scripts/engine_table.py $OUT/port/engine-timing-*.json > $OUT/tables.txt 2>&1
  grep -E '^ako vs|^slower' $OUT/tables.txt | cut -c1-400 >> $S
  xz -9 $OUT/port/engine-timing-*.json && mv $OUT/port/engine-timing-*.json.xz $OUT/
fi
[ -d $OUT/port ] && mv $OUT/port $L/
timeout 200 $A gate --baseline bench/baseline.json --tasks scale_shift --update-baseline --threshold 5 --no-progress > $L/gate-update.txt 2>&1
echo "gate update rc=$?: $(grep -E '^GATE' $L/gate-update.txt)" >> $S
timeout 200 $A gate --baseline bench/baseline.json --tasks scale_shift --no-progress > $L/gate.txt 2>&1
echo "gate rc=$?: $(grep -E '^GATE' $L/gate.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call7.tar.xz -C $OUT logs && rm -rf $L
cat $S
