#!/usr/bin/env bash
# Session 11, call 2: does a plain copy repeat better than the kernels? Five warm `ako run task
# rmsnorm --size-copy` runs 12 s apart; per case, how far the first and last (about a minute
# apart) are from each other for the solution, FlashInfer and the copy of the case's own bytes.
# Then the whole GPU suite (the CUPTI timer now also charges a memcpy record for the copy).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
bundle/bin/ako run task rmsnorm --no-progress --size-copy --json $L/rms-cold.json > $L/rms-cold.txt 2>&1
for i in 1 2 3 4 5; do
  [ $i -gt 1 ] && sleep 12
  t0=$(date +%s.%N); bundle/bin/ako run task rmsnorm --size-copy --no-progress --json $L/rms-warm-$i.json > $L/rms-warm-$i.txt 2>&1; rc=$?; t1=$(date +%s.%N)
  echo "warm run $i: rc $rc, $(python3 -c "print(f'{$t1-$t0:.2f}')") s wall, $(date -u +%T)" >> $S
done
grep -E "^(CORRECT|SPEEDUP|BASELINE|SIZE COPY)" $L/rms-warm-1.txt >> $S
python3 - $L/rms-warm-1.json $L/rms-warm-5.json >> $S <<'PY'
import json, sys
def iqms(f):
    out = {}
    for c in json.load(open(f))["cases"]:
        if c.get("kind") != "compare" or c.get("verdict") != "correct": continue
        k = (c["shape"], c["dtype"], json.dumps(c.get("flags"), sort_keys=True))
        out[(k, "solution")] = c["solution_time"]["iqm_us"]
        if c.get("size_copy_time"): out[(k, "size-copy")] = c["size_copy_time"]["iqm_us"]
        for b in c.get("baselines", []):
            if b.get("time"): out[(k, b["name"])] = b["time"]["iqm_us"]
    return out
a, b = iqms(sys.argv[1]), iqms(sys.argv[2])
for role in ("solution", "flashinfer", "size-copy"):
    d = sorted(((abs(b[k] / a[k] - 1), k) for k in a if k in b and k[1] == role), reverse=True)
    if not d: continue
    print(f"warm 1 vs 5, {role}: {len(d)} IQMs, {sum(x[0] > 0.01 for x in d)} apart by more than 1%, "
          f"{sum(x[0] > 0.005 for x in d)} by more than 0.5%, widest {100*d[0][0]:.2f}% ({d[0][1][0][0]} {d[0][1][0][1]})")
by_shape = {}
for k in a:
    if k in b: by_shape.setdefault((k[0][0], k[1]), []).append(100 * abs(b[k] / a[k] - 1))
print("widest per shape (solution / flashinfer / size-copy, %):")
for shape in sorted({s for s, _ in by_shape}):
    print(f"  {shape}: " + " / ".join(f"{max(by_shape.get((shape, r), [float('nan')])):.2f}" for r in ("solution", "flashinfer", "size-copy")))
PY
t0=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 440 bundle/bin/ako_gpu_tests > $L/gpu-tests.log 2>&1; echo "suite rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]|tests ran" $L/gpu-tests.log >> $S
cat $S
tar cJf $OUT/call2.tar.xz -C $OUT logs && rm -rf $L
