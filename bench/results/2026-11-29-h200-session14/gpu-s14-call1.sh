#!/usr/bin/env bash
# Session 14, call 1 (carry bundle, peers): config classes that choose by dtype, first use.
# norm_scale_shift (iteration 11): the four hand-written text-512-cfg classes, each split in two
# by `dtype == 'fp16'` / `'bf16'`, and a dims-only class per dtype after them (C-3072's params),
# tuned by `ako tune` on their own cases. residual_gate_norm_scale_shift (iteration 6): the shape
# had no class of its own (C-3072-text, never tuned on it); four classes, mod_dtype x dtype, from
# C-3072-text's params, tuned the same way. Each: `ako run` of the shape before x3 (two as device
# "BEFORE") and after x2, interleaved. Then bench/peer_timing.py's shared peer check on scale_shift
# (its first run on a GPU).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
R=bench/results/2026-11-29-h200-session14
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
TUNE_TIME=${TUNE_TIME:-200}
one_task() {  # $1 task, $2 start config
  local T=$1 C=solution/$1/configs
  cp "$C/device_name=NVIDIA_H200.json" $OUT/$T-config-before.json
  cp "$C/device_name=NVIDIA_H200.json" "$C/device_name=BEFORE.json"
  cp $2 "$C/device_name=NVIDIA_H200.json"
  run() {  # $1 tag, $2 device
    timeout 120 $A run task $T --shapes text-512-cfg --device "$2" --no-progress --json $OUT/runs/$T-$1.json > $L/$T-run-$1.txt 2>&1
    echo "$T run $1 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/$T-run-$1.txt | tr '\n' ' ')" >> $S
  }
  run before-1 BEFORE
  local t0=$(date +%s)
  timeout $((TUNE_TIME + 60)) $A tune task $T --shapes text-512-cfg --strategy evolve --budget 40 --time $TUNE_TIME \
    --db $OUT/$T-tune.jsonl --json $OUT/$T-tune.json --no-progress --write-config > $L/$T-tune.txt 2>&1
  echo "$T tune rc=$? $(( $(date +%s) - t0 ))s: $(grep -E '^TUNE' $L/$T-tune.txt | head -2 | tr '\n' ' ')" >> $S
  cp "$C/device_name=NVIDIA_H200.json" $OUT/$T-config-after.json
  run after-1 "NVIDIA H200"; run before-2 BEFORE; run before-3 BEFORE; run after-2 "NVIDIA H200"
  rm -f "$C/device_name=BEFORE.json"
}
one_task norm_scale_shift $R/nss-config-start.json
one_task residual_gate_norm_scale_shift $R/rgnss-config-start.json
timeout 90 python3 bench/peer_timing.py scale_shift --shapes text-512-cfg --peers torch sglang_triton \
  --samples 50 --json $OUT/peer-scale_shift.json > $L/peer.txt 2>&1
echo "peer_timing rc=$?: $(tail -2 $L/peer.txt | tr '\n' ' ')" >> $S
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call1.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
