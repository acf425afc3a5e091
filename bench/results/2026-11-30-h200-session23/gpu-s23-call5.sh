#!/usr/bin/env bash
# Session 23, call 5 (one H200; carry bundle-x, peers). qknorm_rope iteration 5 as committed: the
# solution with the cos/sin loads after the ring's first copies and three classes at ASYNC 2 /
# REGS 48, against commit a01446c's (A: its solution, rebuilt here by reversing
# variants/qknorm_rope-cs-after-copies.patch, and its config, before/, run as device BEFORE),
# A B B A on the five D = 128 model shapes, both dtypes. Then the H200 gate entry rewritten
# (`ako gate --update-baseline --threshold 5`), the full `ako run --size-copy` with
# scripts/engine_table.py on it, and `RunQknormRope.*`. Back: summary.txt, baseline.json, ab.tar.xz.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
H=bench/results/2026-11-30-h200-session23
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
R=$OUT/ab; mkdir -p $R
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $R/smi.txt 2>&1
patch -R -p1 -o /tmp/qr-A.cuh < $H/variants/qknorm_rope-cs-after-copies.patch > $R/patch.txt 2>&1 || { echo "patch -R failed" >> $S; cat $R/patch.txt >> $S; }
cp "$H/before/qknorm_rope-device_name=BEFORE.json" "solution/qknorm_rope/configs/device_name=BEFORE.json"
SHAPES=flux1,flux2,zimage,qwen-image,hunyuan-720p
run() {  # tag args...
  local tag=$1; shift
  timeout 200 $B/bin/ako run task qknorm_rope --shapes $SHAPES --no-progress --size-copy --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
run A1 --solution /tmp/qr-A.cuh --device BEFORE; run B1; run B2; run A2 --solution /tmp/qr-A.cuh --device BEFORE
rm -f "solution/qknorm_rope/configs/device_name=BEFORE.json"
python3 scripts/abba_cases.py $R/{A1,B1,B2,A2}.json > $R/cases.txt 2>&1
grep -v "^B / A\|^noise" $R/cases.txt | cut -c1-150 >> $S; grep "^B / A\|^noise" $R/cases.txt | cut -c1-200 >> $S
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("qknorm_rope")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 200 $B/bin/ako gate --baseline bench/baseline.json --update-baseline --threshold 5 --tasks qknorm_rope --no-progress \
  > $R/gate-update.txt 2>&1
echo "qknorm_rope gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $R/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 300 $B/bin/ako run task qknorm_rope --size-copy --no-progress --json $R/full.json > $R/full.txt 2>&1
echo "full run rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/full.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $R/full.json > $R/engine-table.txt 2>&1
head -13 $R/engine-table.txt >> $S; grep -E "^ako vs|^slower|^under" $R/engine-table.txt | cut -c1-400 >> $S
AKO_BIN=$B/bin/ako AKO_ROOT=$PWD timeout 240 $B/bin/ako_gpu_tests --gtest_filter='RunQknormRope.*' > $R/tests.txt 2>&1
echo "RunQknormRope.* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $R/tests.txt | tr '\n' ' ')" >> $S
cp $S $R/
tar cJf $OUT/ab.tar.xz -C $OUT ab && rm -rf $R
cat $S
