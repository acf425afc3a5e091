#!/usr/bin/env bash
# Session 35, call 16 (nvidia-h200; carry bundle-x). scale_shift with a row past the end loading the last row instead
# of skipping the load (the tree's solution) against the file before (variants/scale_shift-before-clamp.cuh): call 15's
# SASS showed ptxas sinking the bf16 kernel's second-row read-only load below the first row's store at 64 x 8 x 2
# (ROW_CACHE 1). 1. the twins' SASS again, from the tree's file; 2. every case, A B B A (A the file before, B the
# tree's), --size-copy, the H200 config; 3. call 2's W0 point (64 x 8 x 2, ROW_CACHE 1) on wan13b with each file.
# Prediction (before the run): W0's bf16 same-dtype [B, C] case 55 -> ~50 us; the committed classes level or faster.
# Back: summary.txt (printed last), abba.tar.xz, sass.txt.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
nvcc -arch=sm_90a -cubin -O3 -o /tmp/twins2.cubin $D/variants/ss-bf16-fp16-twins.cu > $OUT/nvcc.txt 2>&1
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CUOBJ" -sass /tmp/twins2.cubin > $OUT/sass.txt 2>&1
python3 - $OUT/sass.txt >> $S <<'PY'
import re, sys
fns, cur = {}, None
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m: cur = "bf16" if "bfloat" in m.group(1) else "fp16"; fns[cur] = []; continue
    m = re.search(r"/\*[0-9a-f]{4}\*/\s+([^;]+);", line)
    if cur and m: fns[cur].append(m.group(1).strip())
for k, ins in fns.items():
    mem = [(i, x) for i, x in enumerate(ins) if re.search(r"\b(LDG|STG)\b", x)]
    print(f"{k}: {len(ins)} instructions; LDG/STG at: " + ", ".join(f"{i}:{'STG' if 'STG' in x else 'LDG'}" for i, x in mem))
PY
R=$OUT/abba; mkdir -p $R
for tag in A1 B1 B2 A2; do
  sol=(); [ "${tag:0:1}" = A ] && sol=(--solution $D/variants/scale_shift-before-clamp.cuh)
  timeout 150 bundle/bin/ako run task scale_shift --no-checks --size-copy --no-progress --device "NVIDIA H200" "${sol[@]}" \
    --json $R/ss-$tag.json > $R/ss-$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT' $R/ss-$tag.txt | cut -c1-80)" >> $S
done
python3 scripts/abba_cases.py $R/ss-A1.json $R/ss-B1.json $R/ss-B2.json $R/ss-A2.json --label "loads clamped / before" > $R/abba.txt 2>&1
tail -2 $R/abba.txt >> $S
grep -E "wan13b|wan14b|hunyuan" $R/abba.txt | cut -c1-160 >> $S
P="--param TX=64 --param TY=8 --param ROWS_PER_THREAD=2 --param ROW_CACHE=1 --param STORE_CS=0"
for tag in W0-before W0-clamped; do
  sol=(); [ $tag = W0-before ] && sol=(--solution $D/variants/scale_shift-before-clamp.cuh)
  timeout 60 bundle/bin/ako run task scale_shift --shapes wan13b-480p --no-checks --no-progress --device "NVIDIA H200" $P \
    "${sol[@]}" --json $R/$tag.json > $R/$tag.txt 2>&1
  python3 - $R/$tag.json $tag >> $S <<'PY'
import json, sys
cs = [c for c in json.load(open(sys.argv[1]))["cases"] if c.get("kind") == "compare" and c.get("verdict") == "correct"]
print(sys.argv[2].ljust(12), " | ".join(f'{c["dtype"]} {c["axes"]["layout"]} {c["axes"]["mod_dtype"]} {c["solution_time"]["iqm_us"]:.2f}' for c in cs))
PY
done
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
