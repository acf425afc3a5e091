#!/usr/bin/env bash
# Session 35, call 9 (nvidia-h200; carry bundle-x). The residual fusion's wan13b [B, C]-modulated cases under the sets
# of residual-tokens2-sets.txt (two tokens a thread; the task copy variants/residual-task-tokens2.json allows it),
# A X..X A against the committed config (scripts/gpu-sweep-sets.sh).
# Back: summary.txt (printed last), sweep.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
W=$OUT/sweep; mkdir -p $W
OUT=$W/res SPEC=$D/variants/residual-task-tokens2.json WHERE="layout == 'bc'" RUN_TIMEOUT=90 \
  scripts/gpu-sweep-sets.sh residual_gate_norm_scale_shift wan13b-480p $D/residual-tokens2-sets.txt > /dev/null 2>&1
cat $W/res/summary.txt | cut -c1-1500 >> $S
python3 - $W/res/runs >> $S <<'PY'
import json, sys
R = sys.argv[1] + "/"
def iq(p):
    return {f'{c["dtype"]} {" ".join(f"{k}={v}" for k, v in sorted({**c["axes"], **c["flags"]}.items()))}': c["solution_time"]["iqm_us"]
            for c in json.load(open(R + p)) ["cases"] if c.get("kind") == "compare" and c.get("verdict") == "correct"}
A = [iq("A1.json"), iq("A2.json")]
for t in ["R1", "R2", "R4", "R5", "R6"]:
    try:
        X = [iq(t + "a.json"), iq(t + "b.json")]
    except (OSError, KeyError):
        continue
    print(f"{t} per case (X / A):")
    for k in sorted(A[0]):
        if k in X[0] and k in X[1]:
            a = (A[0][k] + A[1][k]) / 2; x = (X[0][k] + X[1][k]) / 2
            print(f"  {k:70s} {a:7.2f} {x:7.2f} {x / a:.3f}")
PY
tar cJf $OUT/sweep.tar.xz -C $OUT sweep && rm -rf $W
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
