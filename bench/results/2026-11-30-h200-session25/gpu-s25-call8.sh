#!/usr/bin/env bash
# Session 25, call 8 (nvidia-h200-x2; carry bundle-x). The H200 gate entries removed and rewritten
# (every case run, checked and timed on the GPU; the device time left did not cover the GPU tests
# too): GPU 0 the residual fusion with the MIN_BLOCKS 8 class, GPU 1 qknorm with the across-heads sums
# through 32-bit shared addresses (its timings against the entry before, by case, afterwards).
# Back: summary.txt, baseline.json, gate-update-*.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
for t in ("residual_gate_norm_scale_shift", "qknorm"):
    b["devices"]["NVIDIA H200"]["tasks"].pop(t)
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
# Two gate runs on one baseline file would race on it: each GPU writes its own copy, merged after.
gate() {  # gpu task
  local t0=$(date +%s)
  cp bench/baseline.json /tmp/baseline-$2.json
  CUDA_VISIBLE_DEVICES=$1 AKO_CACHE_DIR=/tmp/ako-cache$1 timeout 300 bundle/bin/ako gate --baseline /tmp/baseline-$2.json \
    --update-baseline --threshold 5 --tasks $2 --no-progress > $OUT/gate-update-$2.txt 2>&1
  echo "$2 gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update-$2.txt | cut -c1-300)" > $OUT/gate-$2.sum
}
gate 0 residual_gate_norm_scale_shift & gate 1 qknorm & wait
cat $OUT/gate-*.sum >> $S; rm -f $OUT/gate-*.sum
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
# The residual run's file as written (its device fields too), qknorm's entry from the other.
b["devices"]["NVIDIA H200"] = json.load(open("/tmp/baseline-residual_gate_norm_scale_shift.json"))["devices"]["NVIDIA H200"]
tasks = b["devices"]["NVIDIA H200"]["tasks"]
tasks["qknorm"] = json.load(open("/tmp/baseline-qknorm.json"))["devices"]["NVIDIA H200"]["tasks"]["qknorm"]
b["devices"]["NVIDIA H200"]["tasks"] = dict(sorted(tasks.items()))
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
cp bench/baseline.json $OUT/baseline.json
cat $S
