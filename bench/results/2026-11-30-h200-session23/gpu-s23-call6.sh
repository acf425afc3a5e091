#!/usr/bin/env bash
# Session 23, call 6 (one H200; carry bundle-x, peers). qknorm_rope tuned again with iteration 5's
# kernel (the cos/sin loads after the ring's first copies) on the four image shapes:
# scripts/gpu-tune-abba.sh (ako tune --strategy evolve --classes shape --time 240 --write-config,
# then the written config against the committed one, A B B A, both dtypes), in a copy of the tree.
# Back: summary.txt and tune.tar.xz (the tune's folder and the written config).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
rm -rf /tmp/w1 && mkdir /tmp/w1 && tar c --exclude=./.git --exclude='./bundle*' --exclude='./.sgl-proof*' . | tar x -C /tmp/w1
mkdir -p /tmp/w1/bundle && cp -r $B/bin $B/lib /tmp/w1/bundle/
T=$OUT/tune; t0=$(date +%s)
(cd /tmp/w1 && TUNE_TIME=240 OUT=$T bash scripts/gpu-tune-abba.sh qknorm_rope flux1,flux2,zimage,qwen-image --dtypes bf16 \
   > $OUT/tune-stdout.txt 2>&1)
echo "tune-abba rc=$? ($(( $(date +%s)-t0 )) s)" >> $S
cat $T/summary.txt >> $S 2>/dev/null
cp /tmp/w1/solution/qknorm_rope/configs/device_name=NVIDIA_H200.json $T/config-written.json
grep -v "^B / A\|^noise" $T/cases.txt | cut -c1-150 >> $S
mv $OUT/tune-stdout.txt $T/
tar cJf $OUT/tune.tar.xz -C $OUT tune && rm -rf $T
cat $S
