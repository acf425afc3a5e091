#!/usr/bin/env bash
# Session 12, call 11: call 10's gate refused the new text-512-cfg class on purpose-made grounds
# (bf16 affine LayerNorm [B, C] same-dtype 6.53 -> 7.68 µs, still 1.03x over CuTe DSL, traded for
# fp16 6.83 -> 6.08, from 0.92x to 1.02x over it). Accepted as the gate says to: norm_scale_shift's
# H200 entry removed, written again from this run, then checked.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
python3 - <<'PY'
import json
p = "bench/baseline.json"; d = json.load(open(p))
del d["devices"]["NVIDIA H200"]["tasks"]["norm_scale_shift"]
open(p, "w").write(json.dumps(d, indent=2) + "\n")
PY
start=$(date +%s)
timeout 150 bundle/bin/ako gate --update-baseline --threshold 5 --tasks norm_scale_shift --baseline bench/baseline.json > $L/gate-update.txt 2>&1
echo "gate --update-baseline rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate-update.txt)" >> $S
cp bench/baseline.json $OUT/baseline.json
timeout 150 bundle/bin/ako gate --tasks norm_scale_shift --baseline bench/baseline.json > $L/gate.txt 2>&1
echo "gate rc=$? $(( $(date +%s) - start ))s: $(grep '^GATE' $L/gate.txt)" >> $S
cat $S
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
