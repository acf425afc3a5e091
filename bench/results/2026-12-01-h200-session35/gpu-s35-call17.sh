#!/usr/bin/env bash
# Session 35, call 17 (nvidia-h200; carry bundle-x). Call 16 refuted the clamped loads (ptxas then sank a second-row
# read-only load below the first row's store in both twins, and every video class ran 5-8% slower). A read-only load
# (ld.global.nc) may be moved past a store; a plain ld.global may not. The variant variants/scale_shift-rc-plain.cuh
# issues ROW_CACHE 1's loads as plain ld.global. 1. every case, A B B A (A the committed file, B the variant), the H200
# config, --size-copy; 2. call 2's W0 point (64 x 8 x 2, ROW_CACHE 1) on wan13b with each file.
# Prediction (before the run): W0's bf16 same-dtype [B, C] case 55 -> ~50 us; the committed ROW_CACHE 1 classes level
# or up to 1% faster (nss iteration 4 measured plain loads as fast as __ldg).
# Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session35
V=$D/variants/scale_shift-rc-plain.cuh
R=$OUT/abba; mkdir -p $R
for tag in A1 B1 B2 A2; do
  sol=(); [ "${tag:0:1}" = B ] && sol=(--solution $V)
  timeout 150 bundle/bin/ako run task scale_shift --no-checks --size-copy --no-progress --device "NVIDIA H200" "${sol[@]}" \
    --json $R/ss-$tag.json > $R/ss-$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT' $R/ss-$tag.txt | cut -c1-80)" >> $S
done
python3 scripts/abba_cases.py $R/ss-A1.json $R/ss-B1.json $R/ss-B2.json $R/ss-A2.json --label "plain loads / committed" > $R/abba.txt 2>&1
tail -2 $R/abba.txt >> $S
grep -E "wan13b|wan14b|hunyuan" $R/abba.txt | cut -c1-160 >> $S
P="--param TX=64 --param TY=8 --param ROWS_PER_THREAD=2 --param ROW_CACHE=1 --param STORE_CS=0"
for tag in W0-committed W0-plain; do
  sol=(); [ $tag = W0-plain ] && sol=(--solution $V)
  timeout 60 bundle/bin/ako run task scale_shift --shapes wan13b-480p --no-checks --no-progress --device "NVIDIA H200" $P \
    "${sol[@]}" --json $R/$tag.json > $R/$tag.txt 2>&1
  python3 - $R/$tag.json $tag >> $S <<'PY'
import json, sys
cs = [c for c in json.load(open(sys.argv[1]))["cases"] if c.get("kind") == "compare" and c.get("verdict") == "correct"]
print(sys.argv[2].ljust(13), " | ".join(f'{c["dtype"]} {c["axes"]["layout"]} {c["axes"]["mod_dtype"]} {c["solution_time"]["iqm_us"]:.2f}' for c in cs))
PY
done
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
