#!/usr/bin/env bash
# Session 33, call 8 (nvidia-h200; carry bundle-x): SURE by case on text-512-cfg and the walk with SURE elsewhere.
# The tree's configs have *-sure classes (make-sure-classes.py over calls 2-3's text-512-cfg sweeps, threshold
# 0.985: norm_scale_shift 7 cases in 3 classes, the residual fusion 13 in 6).
# 1. walk-sure-sets.txt: the walk class's params with SURE 1 on wan13b's other ten per-frame cases (norm_scale_shift);
#    wan14b-sure-sets.txt: SURE 1 on wan14b's per-frame cases;
# 2. each text-512-cfg config against HEAD's (*-before*.json), A B B A on text-512-cfg;
# 3. both H200 gate entries rewritten by ako (kept only if step 2 keeps the classes).
# Back: summary.txt (printed last), runs.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session33
R=$OUT/runs; L=$OUT/logs; mkdir -p $R $L
OUT=$R/walk WHERE="layout == 'bf1c' && !(norm == 'layer' && (affine || mod_dtype == 'fp32'))" RUN_TIMEOUT=120 \
  scripts/gpu-sweep-sets.sh norm_scale_shift wan13b-480p $D/walk-sure-sets.txt > /dev/null 2>&1
echo "== walk + SURE, wan13b's other per-frame cases ($(( $(date +%s) - T0 )) s)" >> $S; cut -c1-1800 $R/walk/summary.txt >> $S
OUT=$R/wan14b WHERE="layout == 'bf1c'" RUN_TIMEOUT=120 \
  scripts/gpu-sweep-sets.sh norm_scale_shift wan14b-480p $D/wan14b-sure-sets.txt > /dev/null 2>&1
echo "== SURE 1, wan14b per-frame ($(( $(date +%s) - T0 )) s)" >> $S; cut -c1-1000 $R/wan14b/summary.txt >> $S
abba() {  # task before-config label
  local C=solution/$1/configs
  cp $D/$2 $C/device_name=BEFORE.json
  for r in "A1 BEFORE" "B1 NVIDIA H200" "B2 NVIDIA H200" "A2 BEFORE"; do
    local tag=${r%% *} dev=${r#* }
    timeout 150 bundle/bin/ako run task $1 --shapes text-512-cfg --no-progress --device "$dev" --json $R/$1-$tag.json > $R/$1-$tag.txt 2>&1
    echo "$1 $tag ($dev) rc=$?: $(grep -E '^CORRECT' $R/$1-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
  done
  rm -f $C/device_name=BEFORE.json
  python3 scripts/abba_cases.py $R/$1-A1.json $R/$1-B1.json $R/$1-B2.json $R/$1-A2.json --label "$3" > $R/$1-abba.txt 2>&1
  grep -E "^$3|^noise" $R/$1-abba.txt | cut -c1-600 >> $S
  python3 - $R/$1-abba.txt $1 >> $S <<'PY'
import json, sys
classes = {c["name"]: c for c in json.load(open(f"solution/{sys.argv[2]}/configs/device_name=NVIDIA_H200.json"))["classes"]}
lines = [l for l in open(sys.argv[1]) if " B/A " in l]
for l in lines:
    if float(l.split("B/A")[1].split()[0]) > 1.01 or float(l.split("B/A")[1].split()[0]) < 0.99:
        print("  " + " ".join(l.split()))
PY
}
abba norm_scale_shift nss-h200-config-before-text.json "nss text-512-cfg SURE classes / before"
abba residual_gate_norm_scale_shift residual-h200-config-before.json "residual text-512-cfg SURE classes / before"
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
for t in ("norm_scale_shift", "residual_gate_norm_scale_shift"):
    b["devices"]["NVIDIA H200"]["tasks"].pop(t)
open("/tmp/baseline-s33b.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
for t in norm_scale_shift residual_gate_norm_scale_shift; do
  t0=$(date +%s)
  timeout 240 bundle/bin/ako gate --baseline /tmp/baseline-s33b.json --update-baseline --threshold 5 --tasks $t \
    --no-progress > $L/gate-update-$t.txt 2>&1
  echo "$t gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-$t.txt | cut -c1-300)" >> $S
done
cp /tmp/baseline-s33b.json $OUT/baseline.json
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
