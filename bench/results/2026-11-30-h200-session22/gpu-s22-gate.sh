#!/usr/bin/env bash
# Session 22, call 8 (nvidia-h200-x2, GPU 0; carry bundle-s): norm_scale_shift's H200 gate entry
# rewritten for the config with call 7's class (its H200 entry removed first, so no budget of a
# kernel the config no longer launches stays): `ako gate --update-baseline --threshold 5`.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
S=$OUT/summary.txt; : > $S
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
t1=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout 200 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
  --tasks norm_scale_shift --no-progress > $OUT/gate-update.txt 2>&1
echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
cat $S
