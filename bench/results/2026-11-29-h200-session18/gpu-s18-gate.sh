#!/usr/bin/env bash
# Session 18, the last call (nvidia-h200-x2; carry bundle/bin/ako, bundle/bin/ako-worker,
# bundle/lib): `ako gate --update-baseline --threshold 5` for the three tasks whose H200 configs
# changed (norm_scale_shift, residual_gate_norm_scale_shift without call 12's wan14b class,
# layernorm with its text-512 affine class); bench/baseline.json comes back.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
mkdir -p $OUT
t1=$(date +%s)
timeout 240 bundle/bin/ako gate --baseline bench/baseline.json --update-baseline --threshold 5 \
  --tasks norm_scale_shift,residual_gate_norm_scale_shift,layernorm --no-progress > $OUT/gate-update.txt 2>&1
echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE' $OUT/gate-update.txt)"
grep -E "FAIL" $OUT/gate-update.txt | head
cp bench/baseline.json $OUT/baseline.json
