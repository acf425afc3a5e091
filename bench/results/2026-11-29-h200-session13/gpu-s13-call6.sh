#!/usr/bin/env bash
# Session 13, call 6 (carry bundle, peers): ako tune with a config class that splits a shape's
# cases by an axis. scale_shift's H200 config gets `shape-text-512-cfg-per-token` (text-512-cfg's
# lc and blc layouts, its params those of `shape-text-512-cfg` as committed, so the first run is
# the committed kernels); `ako tune` then tunes it on those 8 cases and `shape-text-512-cfg` on
# the other 12, both from one record per variant. Before and after: `ako run` of the shape,
# ABBA with the config before the tune (device "BEFORE").
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
C=solution/scale_shift/configs
cp "$C/device_name=NVIDIA_H200.json" $OUT/config-before.json
cp "$C/device_name=NVIDIA_H200.json" "$C/device_name=BEFORE.json"
run() {  # $1 tag, $2 device
  timeout 120 $A run task scale_shift --shapes text-512-cfg --device "$2" --no-progress --json $OUT/runs/$1.json > $L/run-$1.txt 2>&1
  echo "run $1 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/run-$1.txt | tr '\n' ' ')" >> $S
}
run before-1 "NVIDIA H200"
t0=$(date +%s)
timeout 330 $A tune task scale_shift --shapes text-512-cfg --strategy evolve --budget 30% --time ${TUNE_TIME:-240} \
  --db $OUT/scale_shift-tune.jsonl --json $OUT/tune.json --no-progress --write-config > $L/tune.txt 2>&1
echo "tune rc=$? $(( $(date +%s) - t0 ))s: $(grep -E '^TUNE' $L/tune.txt | head -2 | tr '\n' ' ')" >> $S
cp "$C/device_name=NVIDIA_H200.json" $OUT/config-after.json
diff <(python3 -m json.tool $OUT/config-before.json) <(python3 -m json.tool $OUT/config-after.json) > $OUT/config.diff
run after-1 "NVIDIA H200"; run before-2 BEFORE; run before-3 BEFORE; run after-2 "NVIDIA H200"
timeout 120 $A gate --baseline bench/baseline.json --tasks scale_shift --no-progress > $L/gate.txt 2>&1
echo "gate rc=$?: $(grep -E '^GATE' $L/gate.txt)" >> $S
rm -f "$C/device_name=BEFORE.json"
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call6.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
