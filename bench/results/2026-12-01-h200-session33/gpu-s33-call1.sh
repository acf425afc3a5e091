#!/usr/bin/env bash
# Session 33 call 1: session 32's prepared-layernorm-sure.sh as it was (its files read from the session-32 folder).
# Prepared in session 32 for a later session's call (not run in session 32; carry bundle-x rebuilt from a tree with
# layernorm's SURE, commit 13c698d or later): layernorm iteration 12's Next.
# 1. GPU test RunLayernorm.OddWidthsTakeEveryPathAndAreCorrect (now with SURE 1, alone and with WB_EARLY);
# 2. ln-sure-sets.txt: SURE 1 on every shape, A S1 S1 A (scripts/gpu-sweep-sets.sh; text-512-cfg and wan14b-480p
#    without their fp32 affine case, which spills under SURE 1);
# 3. variants/layernorm-h200-config-wan13b-sure.json (wan13b's class at SURE 1) against the committed config, A B B
#    A on wan13b's six cases (its fp32 affine case included);
# 4. ln-plain-sets.txt: x by plain ld.global (X_L1 2, variants/layernorm-task-plain.json) on five shapes, A P1 P1 A.
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
R=$OUT/runs; mkdir -p $R
AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 240 bundle/bin/ako_gpu_tests --gtest_filter='RunLayernorm.OddWidthsTakeEveryPathAndAreCorrect' > $R/gpu-tests.txt 2>&1
echo "odd widths test rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^\[ +(OK|PASSED|FAILED) ' $R/gpu-tests.txt | tr '\n' ' ')" >> $S
for s in text-512 text-512-cfg flux1-single flux2-single qwen-image zimage ltx-video wan13b-480p wan14b-480p hunyuan-720p; do
  W=""; case $s in text-512-cfg|wan14b-480p) W="dtype != 'fp32' || !affine";; esac
  OUT=$R/$s WHERE="$W" RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh layernorm $s $D/ln-sure-sets.txt > /dev/null 2>&1
  echo "== $s ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $R/$s/summary.txt | cut -c1-1200 >> $S
  grep '^run ' $R/$s/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
done
C=solution/layernorm/configs
cp $D/variants/layernorm-h200-config-wan13b-sure.json $C/device_name=SURE.json
one() {  # tag device
  timeout 100 bundle/bin/ako run task layernorm --shapes wan13b-480p --no-progress --device "$2" --json $R/ab-$1.json > $R/ab-$1.txt 2>&1
  echo "ab $1 ($2) rc=$?: $(grep -E '^CORRECT' $R/ab-$1.txt | tr '\n' ' ' | cut -c1-100)" >> $S
}
one A1 "NVIDIA H200"; one B1 SURE; one B2 SURE; one A2 "NVIDIA H200"
rm -f $C/device_name=SURE.json
python3 scripts/abba_cases.py $R/ab-A1.json $R/ab-B1.json $R/ab-B2.json $R/ab-A2.json --label "wan13b at SURE 1 / committed" >> $S 2>&1
for s in zimage flux1-single qwen-image wan13b-480p hunyuan-720p; do
  OUT=$R/plain-$s SPEC=$D/variants/layernorm-task-plain.json RUN_TIMEOUT=100 scripts/gpu-sweep-sets.sh layernorm $s $D/ln-plain-sets.txt > /dev/null 2>&1
  echo "== plain loads $s ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $R/plain-$s/summary.txt | cut -c1-1200 >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
