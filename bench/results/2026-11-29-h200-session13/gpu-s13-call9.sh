#!/usr/bin/env bash
# Session 13, call 9 (carry bundle, peers): norm_scale_shift's four text-512-cfg classes that
# earlier sessions wrote by hand (their `when` names axes: affine, norm, layout, mod_dtype), and a
# new `shape-text-512-cfg` after them that takes the shape's other 20 cases (from C-3072, the
# generic class every unseen C <= 3072 shape falls to, left as it is), its params C-3072's, tuned
# by `ako tune` on their own cases (`--shapes text-512-cfg`, evolve, 40 variants a class, 240 s).
# `ako run` of the shape before (x3, one as device "BEFORE") and after (x2), interleaved; `ako
# gate --tasks norm_scale_shift` against the committed entry.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
T=norm_scale_shift
L=$OUT/logs; mkdir -p $L $OUT/runs; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
C=solution/$T/configs
cp "$C/device_name=NVIDIA_H200.json" $OUT/config-before.json
cp "$C/device_name=NVIDIA_H200.json" "$C/device_name=BEFORE.json"
run() {  # $1 tag, $2 device
  timeout 120 $A run task $T --shapes text-512-cfg --device "$2" --no-progress --json $OUT/runs/$1.json > $L/run-$1.txt 2>&1
  echo "run $1 rc=$?: $(grep -E '^CORRECT|^RUNTIME' $L/run-$1.txt | tr '\n' ' ')" >> $S
}
run before-1 "NVIDIA H200"
t0=$(date +%s)
timeout 330 $A tune task $T --shapes text-512-cfg --strategy evolve --budget 40 --time ${TUNE_TIME:-240} \
  --db $OUT/$T-tune.jsonl --json $OUT/tune.json --no-progress --write-config > $L/tune.txt 2>&1
echo "tune rc=$? $(( $(date +%s) - t0 ))s: $(grep -E '^TUNE' $L/tune.txt | head -2 | tr '\n' ' ')" >> $S
cp "$C/device_name=NVIDIA_H200.json" $OUT/config-after.json
diff <(python3 -m json.tool $OUT/config-before.json) <(python3 -m json.tool $OUT/config-after.json) > $OUT/config.diff
run after-1 "NVIDIA H200"; run before-2 BEFORE; run before-3 BEFORE; run after-2 "NVIDIA H200"
timeout 150 $A gate --baseline bench/baseline.json --tasks $T --no-progress > $L/gate.txt 2>&1
echo "gate rc=$?: $(grep -E '^GATE' $L/gate.txt)" >> $S
rm -f "$C/device_name=BEFORE.json"
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/call9.tar.xz -C $OUT logs runs && rm -rf $L $OUT/runs
cat $S
