#!/usr/bin/env bash
# Session 23, call 8 (one H200; carry bundle-x, peers). qknorm_rope's two image shapes under 1.1x
# (flux2, zimage) with finer token splits than the task's values offer: SPLIT 15, 16, 20, 24 added
# to the values on the device's copy of task.json only, each point the shape's class with that
# SPLIT (B 16, C 24, D 20, E 15) against the config (A), A B C D E E D C B A, both dtypes.
# (flux1's class, the fastest image shape against SGLang, runs 4 heads a group; flux2 at SPLIT 12
# runs 8, zimage 5.) Back: summary.txt, ab.tar.xz.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
R=$OUT/ab; mkdir -p $R
sed -i 's/"SPLIT": \[0, 1, 2, 3, 4, 6, 8, 12\],/"SPLIT": [0, 1, 2, 3, 4, 6, 8, 12, 15, 16, 20, 24],/' tasks/qknorm_rope/task.json
grep -q '"SPLIT": \[0, 1, 2, 3, 4, 6, 8, 12, 15, 16, 20, 24\]' tasks/qknorm_rope/task.json || echo "sed did not apply" >> $S
run() {  # tag args...
  local tag=$1; shift
  timeout 200 $B/bin/ako run task qknorm_rope --shapes flux2,zimage --no-progress --size-copy --json $R/$tag.json "$@" > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
run A1; run B1 --param SPLIT=16; run C1 --param SPLIT=24; run D1 --param SPLIT=20; run E1 --param SPLIT=15
run E2 --param SPLIT=15; run D2 --param SPLIT=20; run C2 --param SPLIT=24; run B2 --param SPLIT=16; run A2
for v in B C D E; do
  echo "== $v / A" >> $S
  python3 scripts/abba_cases.py $R/A1.json $R/${v}1.json $R/${v}2.json $R/A2.json > $R/cases-$v.txt 2>&1
  grep -v "^B / A\|^noise" $R/cases-$v.txt | cut -c1-150 >> $S
done
grep "^noise" $R/cases-B.txt | cut -c1-200 >> $S
cp $S $R/
tar cJf $OUT/ab.tar.xz -C $OUT ab && rm -rf $R
cat $S
