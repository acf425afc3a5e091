#!/usr/bin/env bash
# Session 23, call 4 (one H200; carry bundle-x, peers). qknorm_rope iteration 5: the ASYNC path
# asks for its first heads before the position and cos/sin loads (variants/qknorm_rope-cs-after-
# copies.patch, applied here to the device's copy of the tree). A = the committed solution (kept
# aside as /tmp/qr-A.cuh, run with --solution), B = the patched solution, C = B with ASYNC 2 at
# REGS 48; the five D = 128 model shapes, both dtypes, A B C C B A, --size-copy.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
R=$OUT/ab; mkdir -p $R
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $R/smi.txt 2>&1
cp solution/qknorm_rope/qknorm_rope.cuh /tmp/qr-A.cuh
patch -p1 < bench/results/2026-11-30-h200-session23/variants/qknorm_rope-cs-after-copies.patch > $R/patch.txt 2>&1 \
  || git apply bench/results/2026-11-30-h200-session23/variants/qknorm_rope-cs-after-copies.patch >> $R/patch.txt 2>&1 \
  || { echo "patch failed" >> $S; cat $R/patch.txt >> $S; exit 1; }
SHAPES=flux1,flux2,zimage,qwen-image,hunyuan-720p
run() {  # tag args...
  local tag=$1; shift
  CUDA_VISIBLE_DEVICES=0 timeout 200 $B/bin/ako run task qknorm_rope --shapes $SHAPES --no-progress --size-copy \
    --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
V_C="--param ASYNC=2 --param REGS=48"
run A1 --solution /tmp/qr-A.cuh; run B1; run C1 $V_C; run C2 $V_C; run B2; run A2 --solution /tmp/qr-A.cuh
for v in B C; do
  echo "== $v / A" >> $S
  python3 scripts/abba_cases.py $R/A1.json $R/${v}1.json $R/${v}2.json $R/A2.json > $R/cases-$v.txt 2>&1
  grep -v "^B / A\|^noise" $R/cases-$v.txt | cut -c1-150 >> $S; grep "^B / A" $R/cases-$v.txt | cut -c1-200 >> $S
done
grep "^noise" $R/cases-B.txt | cut -c1-200 >> $S
cp $S $R/
tar cJf $OUT/ab.tar.xz -C $OUT ab && rm -rf $R
cat $S
