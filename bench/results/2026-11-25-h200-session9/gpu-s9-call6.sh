#!/usr/bin/env bash
# Session 9, call 6: norm_scale_shift's image shapes (78-89% of copy after iteration 4): a per-shape
# tune with ROW_CACHE in the space, before / after runs twice each as call 5; then the gate entries
# of both norm fusions rewritten with the configs as they then are (residual: call 5's classes), and checked.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
T=norm_scale_shift; SH=flux1-single,flux2-single,qwen-image,zimage,ltx-video
run() { timeout 120 bundle/bin/ako run task $T --shapes $SH --no-progress --json $OUT/$1.json > $L/$1.txt 2>&1; echo "$1 rc=$?: $(grep -E '^CORRECT' $L/$1.txt)" >> $S; }
C=solution/$T/configs/device_name=NVIDIA_H200.json; cp $C /tmp/config-before.json
run before-1
timeout 330 bundle/bin/ako tune task $T --strategy evolve --classes shape --shapes $SH --dtypes bf16 --trials 1 \
  --time 240 --write-config --db $OUT/tune.jsonl --json $OUT/tune.json --no-progress > $L/tune.txt 2>&1
echo "tune rc=$?: $(tail -3 $L/tune.txt | tr '\n' ' ')" >> $S
cp $C $OUT/config-after.json
run after-1
cp /tmp/config-before.json $C; run before-2
cp $OUT/config-after.json $C; run after-2
python3 - >> $S <<'PY'
import json, os
O = os.environ["OUT"]
def load(n):
    j = json.load(open(f"{O}/{n}.json"))
    return {(c["shape"], c["dtype"], json.dumps(c["axes"], sort_keys=True), json.dumps(c["flags"], sort_keys=True)): c
            for c in j["cases"] if c["kind"] == "compare" and c["verdict"] == "correct"}
b1, a1, b2, a2 = (load(n) for n in ["before-1", "after-1", "before-2", "after-2"])
t = lambda r, k: r[k]["solution_time"]["iqm_us"]
print("  case: committed runs 1, 2 -> tuned runs 1, 2 (us), % of copy, class -> class, params")
for k in sorted(b1):
    if all(k in r for r in (a1, b2, a2)):
        print(f"  {k[0]:13s} {k[1]} {k[2]} {k[3]}: {t(b1,k):.2f} {t(b2,k):.2f} -> {t(a1,k):.2f} {t(a2,k):.2f} "
              f"({b1[k]['pct_copy_bw']:.1f} -> {a1[k]['pct_copy_bw']:.1f}%) {b1[k]['config_class']} -> {a1[k]['config_class']} {a1[k]['params']}")
PY
TT=norm_scale_shift,residual_gate_norm_scale_shift
timeout 150 bundle/bin/ako gate --update-baseline --threshold 5 --tasks $TT --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$?: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 100 bundle/bin/ako gate --tasks $TT --baseline bench/baseline.json > $L/gate-check.txt 2>&1
echo "gate rc=$?: $(grep '^GATE' $L/gate-check.txt)" >> $S
grep -E "^  FAIL" $L/gate-update.txt $L/gate-check.txt | head -10 >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
