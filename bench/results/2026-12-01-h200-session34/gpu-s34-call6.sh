#!/usr/bin/env bash
# Session 34, call 6 (nvidia-h200; carry .sglang-deps/py312-1 .. py312-6, bundle-x; call 7 follows within ~30 s
# with the deps' last parts). The tree has two more layernorm classes: flux1-single's and qwen-image's fp32 affine
# case at SURE 1 (0.973 / 0.987 in call 5, 0.985 / 0.985 in session 33's call 1).
# 0. the CuTe DSL deps parts 1-6 (exit 3 expected: parts 7-8 come with call 7);
# 1. the config against the one before them (layernorm-h200-config-before-fp32.json), A B B A on the two shapes;
# 2. only if both fp32 affine cases ran faster there (B/A < 0.995): layernorm's H200 gate entry rewritten by ako,
#    and /tmp/s34-fp32-ok left for call 7 (which then proves and times the port).
# Back: summary.txt (printed last), abba.tar.xz, and with 2: baseline.json, logs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$? (3 expected): $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session34
R=$OUT/abba; L=$OUT/logs; mkdir -p $R $L
C=solution/layernorm/configs
cp $D/layernorm-h200-config-before-fp32.json $C/device_name=BEFORE.json
for r in "A1 BEFORE" "B1 NVIDIA H200" "B2 NVIDIA H200" "A2 BEFORE"; do
  tag=${r%% *} dev=${r#* }
  timeout 100 bundle/bin/ako run task layernorm --shapes flux1-single,qwen-image --no-progress --device "$dev" \
    --json $R/ln-$tag.json > $R/ln-$tag.txt 2>&1
  echo "$tag ($dev) rc=$?: $(grep -E '^CORRECT' $R/ln-$tag.txt | tr '\n' ' ' | cut -c1-100)" >> $S
done
rm -f $C/device_name=BEFORE.json
python3 scripts/abba_cases.py $R/ln-A1.json $R/ln-B1.json $R/ln-B2.json $R/ln-A2.json --label "fp32 affine SURE / before" > $R/abba.txt 2>&1
cut -c1-3000 $R/abba.txt >> $S
faster=$(grep -E 'fp32 affine=True' $R/abba.txt | awk '{for (i = 1; i < NF; i++) if ($i == "B/A") print $(i + 1)}' | awk '$1 < 0.995' | wc -l)
echo "fp32 affine cases faster than 0.995: $faster of 2" >> $S
if [ "$faster" -eq 2 ]; then
  python3 - <<'PY'
import json
b = json.load(open("bench/baseline.json"))
b["devices"]["NVIDIA H200"]["tasks"].pop("layernorm")
open("/tmp/baseline-s34b.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
  t0=$(date +%s)
  timeout 200 bundle/bin/ako gate --baseline /tmp/baseline-s34b.json --update-baseline --threshold 5 --tasks layernorm \
    --no-progress > $L/gate-update-layernorm.txt 2>&1
  echo "layernorm gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $L/gate-update-layernorm.txt | cut -c1-300)" >> $S
  cp /tmp/baseline-s34b.json $OUT/baseline.json
  touch /tmp/s34-fp32-ok  # call 7 proves and times the port only then
fi
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
