#!/usr/bin/env bash
# Session 35, call 3 (nvidia-h200; carry .sglang-deps/py312-1 .. py312-6, bundle-x; call 4 follows within ~30 s with
# the deps' last parts and the port). The tree's scale_shift config: ROW_CACHE 1 on wan14b's and hunyuan's four
# classes (call 2), wan13b's class at 64 x 4 x 4 with ROW_CACHE 1 (call 2's W4).
# 0. the deps parts 1-6 (exit 3 expected: parts 7-8 come with call 4);
# 1. the config against the one before (ss-h200-config-before.json), A B B A on every case, --size-copy;
# 2. scale_shift's H200 gate entry rewritten by ako (ako gate --update-baseline --threshold 5);
# 3. the family's GPU tests.
# Back: summary.txt (printed last), abba.tar.xz, baseline.json (committed as bench/baseline.json), logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$? (3 expected): $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
C=solution/scale_shift/configs
cp $D/ss-h200-config-before.json $C/device_name=BEFORE.json
for r in "A1 BEFORE" "B1 NVIDIA H200" "B2 NVIDIA H200" "A2 BEFORE"; do
  tag=${r%% *} dev=${r#* }
  t1=$(date +%s)
  timeout 150 bundle/bin/ako run task scale_shift --no-checks --size-copy --no-progress --device "$dev" \
    --json $R/ss-$tag.json > $R/ss-$tag.txt 2>&1
  echo "$tag ($dev) rc=$? $(( $(date +%s) - t1 ))s: $(grep -E '^CORRECT' $R/ss-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
done
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/ss-A1.json $R/ss-B1.json $R/ss-B2.json $R/ss-A2.json --label "session 35 config / before" > $R/abba.txt 2>&1
grep -E "wan|hunyuan" $R/abba.txt | cut -c1-200 >> $S
tail -2 $R/abba.txt >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("scale_shift")
open("/tmp/baseline-s35.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t1=$(date +%s)
timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-s35.json --update-baseline --threshold 5 --tasks scale_shift \
  --no-progress > $L/gate-update-scale_shift.txt 2>&1
echo "scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-scale_shift.txt | cut -c1-300)" >> $S
cp /tmp/baseline-s35.json $OUT/baseline.json
t1=$(date +%s)
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 150 bundle/bin/ako_gpu_tests --gtest_filter='ScaleShift.*' > $L/tests.txt 2>&1
echo "ScaleShift.* rc=$? $(( $(date +%s) - t1 ))s: $(grep -E '^\[  (PASSED|FAILED)' $L/tests.txt | tr '\n' ' ')" >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
