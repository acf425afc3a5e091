#!/usr/bin/env bash
# Session 23, call 9 (one H200; carry bundle-x, peers, .sgl-proof-q prepared from
# scripts/sglang-port-check.sh --task qknorm_rope on commit 41bd6e3's tree, then
# SGL_PROOF=.sgl-proof-q scripts/sglang-gpu-check.sh --prepare). qknorm_rope as finally committed
# (flux2 at SPLIT 16): the H200 gate entry removed and rewritten, the full `ako run --size-copy`
# and scripts/engine_table.py on it, `RunQknormRope.*`, and the port through SGLang 0.5.23's JIT
# and tvm-ffi (every case against float64, bad-input, stream and wrapper checks).
# Back: summary.txt, baseline.json, q.tar.xz.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker ako_gpu_tests; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
S=$OUT/summary.txt; : > $S
R=$OUT/q; mkdir -p $R
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $R/smi.txt 2>&1
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("qknorm_rope")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
LD_LIBRARY_PATH=$B/lib timeout 200 $B/bin/ako gate --baseline bench/baseline.json --update-baseline --threshold 5 \
  --tasks qknorm_rope --no-progress > $R/gate-update.txt 2>&1
echo "qknorm_rope gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $R/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
LD_LIBRARY_PATH=$B/lib timeout 300 $B/bin/ako run task qknorm_rope --size-copy --no-progress --json $R/full.json > $R/full.txt 2>&1
echo "full run rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/full.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $R/full.json > $R/engine-table.txt 2>&1
head -13 $R/engine-table.txt >> $S; grep -E "^ako vs|^slower|^under" $R/engine-table.txt | cut -c1-300 >> $S
python3 scripts/engine_table.py --by-shape --markdown $R/full.json > $R/engine-table-by-shape.md 2>&1
AKO_BIN=$B/bin/ako AKO_ROOT=$PWD LD_LIBRARY_PATH=$B/lib timeout 240 $B/bin/ako_gpu_tests --gtest_filter='RunQknormRope.*' > $R/tests.txt 2>&1
echo "RunQknormRope.* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $R/tests.txt | tr '\n' ' ')" >> $S
t0=$(date +%s)
SGL_PROOF=$PWD/.sgl-proof-q OUT=$R/port timeout 300 scripts/sglang-gpu-check.sh --task qknorm_rope > $R/port.txt 2>&1
echo "qknorm_rope port check rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E 'SGLANG-GPU-CHECK' $R/port.txt | tail -1)" >> $S
grep -E '^all [0-9]+ cases|entry points' $R/port.txt | cut -c1-200 >> $S
cp $S $R/
tar cJf $OUT/q.tar.xz -C $OUT q && rm -rf $R
cat $S
