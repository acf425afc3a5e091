#!/usr/bin/env bash
# Session 32, call 6 (nvidia-h200; carry bundle-x): the H200 config with the
# walk class at MIN_BLOCKS 10 taking every per-frame LayerNorm case of wan13b but the same-dtype no-affine
# ones (call 5's M1; two classes it left without cases removed):
# 1. the config against the one before (nss-h200-config-before.json), A B B A on wan13b-480p;
# 2. the H200 gate entry rewritten by ako (--update-baseline --threshold 5).
# Back: summary.txt (printed last), abba.tar.xz, baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
C=solution/norm_scale_shift/configs
cp $D/nss-h200-config-before.json $C/device_name=BEFORE.json
one() {  # tag device
  timeout 120 bundle/bin/ako run task norm_scale_shift --shapes wan13b-480p --no-progress --device "$2" \
    --json $R/nss-$1.json > $R/nss-$1.txt 2>&1
  echo "nss $1 ($2) rc=$?: $(grep -E '^CORRECT' $R/nss-$1.txt | tr '\n' ' ' | cut -c1-100)" >> $S
}
one A1 BEFORE; one B1 "NVIDIA H200"; one B2 "NVIDIA H200"; one A2 BEFORE
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/nss-A1.json $R/nss-B1.json $R/nss-B2.json $R/nss-A2.json --label "walk at 10 blocks / before" \
  > $R/nss-abba.txt 2>&1
grep -E "^walk|^noise" $R/nss-abba.txt | cut -c1-2500 >> $S
grep -E "layout=bf1c" $R/nss-abba.txt | grep "norm=layer" | cut -c1-200 >> $S
python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("norm_scale_shift")
open("/tmp/baseline-nss.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 240 bundle/bin/ako gate --baseline /tmp/baseline-nss.json --update-baseline --threshold 5 --tasks norm_scale_shift \
  --no-progress > $L/gate-update.txt 2>&1
echo "norm_scale_shift gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-nss.json $OUT/baseline.json
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
