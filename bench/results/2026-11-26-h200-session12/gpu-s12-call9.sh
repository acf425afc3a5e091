#!/usr/bin/env bash
# Session 12, call 9 (carry bundle, peers, .sgl-proof): the ported residual kernel with the config
# as committed (the wan13b class gone) through SGLang's JIT and tvm-ffi; issue 11's two timing bars
# again on another machine (as call 7: a cold and five warm `ako run task rmsnorm`, warm 1 against 5).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
start=$(date +%s)
OUT=$OUT/port timeout 200 scripts/sglang-gpu-check.sh --task residual_gate_norm_scale_shift > $L/port.txt 2>&1
echo "port proof rc=$? $(( $(date +%s) - start ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
[ -d $OUT/port ] && mv $OUT/port $L/
bundle/bin/ako run task rmsnorm --no-progress --json $L/rms-cold.json > $L/rms-cold.txt 2>&1
for i in 1 2 3 4 5; do
  [ $i -gt 1 ] && sleep 12
  t0=$(date +%s.%N); bundle/bin/ako run task rmsnorm --no-progress --json $L/rms-warm-$i.json > $L/rms-warm-$i.txt 2>&1; rc=$?; t1=$(date +%s.%N)
  echo "warm run $i: rc $rc, $(python3 -c "print(f'{$t1-$t0:.2f}')") s wall, $(date -u +%T)" >> $S
done
grep -E "^(CORRECT|SPEEDUP|BASELINE)" $L/rms-warm-1.txt >> $S
python3 - $L/rms-warm-1.json $L/rms-warm-5.json >> $S <<'PY'
import json, sys
def iqms(f):
    out = {}
    for c in json.load(open(f))["cases"]:
        if c.get("kind") != "compare" or c.get("verdict") != "correct": continue
        k = (c["shape"], c["dtype"], json.dumps(c.get("flags"), sort_keys=True))
        out[(k, "solution")] = c["solution_time"]["iqm_us"]
        for b in c.get("baselines", []):
            if b.get("time"): out[(k, b["name"])] = b["time"]["iqm_us"]
    return out
a, b = iqms(sys.argv[1]), iqms(sys.argv[2])
d = sorted(((abs(b[k] / a[k] - 1), k) for k in a if k in b), reverse=True)
sol = [x for x in d if x[1][1] == "solution"]
print(f"warm 1 vs 5: {len(sol)} solution IQMs, {sum(x[0] > 0.01 for x in sol)} apart by more than 1%, widest {100*sol[0][0]:.2f}% ({sol[0][1][0][0]} {sol[0][1][0][1]}); all kernels: {sum(x[0] > 0.01 for x in d)} of {len(d)} past 1%")
PY
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
