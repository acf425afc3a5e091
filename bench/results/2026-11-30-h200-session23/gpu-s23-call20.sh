#!/usr/bin/env bash
# Session 23, call 20 (one H200; carry bundle-x): a measurement for the next session, nothing
# adopted. The residual fusion's wan13b cases with the per-frame gate and [B, C] modulation
# (`gate=bf1c layout=bc`, C-1536's 64 threads x 3 chunks of 8) trail SGLang's CuTe DSL kernel by
# 1-2% (call 19). Three variants of C-1536's params for those cases only, each a class in front of
# the H200 config (variants/res-device_name=TRY{B,C,D}.json, run as devices TRYB, TRYC, TRYD):
# B ROWS_PER_BLOCK 2 at BLOCK 128 (two tokens a block), C EARLY_MOD 1 (the [B, C] rows loaded
# before the reductions), D BLOCK 192 CHUNKS 1 (CuTe DSL's C / 8 threads a token), against the
# config (A), every wan13b case, A B C D D C B A.
# Back: summary.txt, ab.tar.xz.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=/tmp/bx; rm -rf $B; mkdir -p $B/bin && cp -r bundle-x/lib $B/
for b in ako ako-worker; do xz -dc bundle-x/$b.xz > $B/bin/$b && chmod +x $B/bin/$b; done
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
S=$OUT/summary.txt; : > $S
R=$OUT/ab; mkdir -p $R
run() {  # tag args...
  local tag=$1; shift
  timeout 40 $B/bin/ako run task residual_gate_norm_scale_shift --shapes wan13b-480p --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $S
}
for t in TRYB TRYC TRYD; do
  cp "bench/results/2026-11-30-h200-session23/variants/res-device_name=$t.json" \
    "solution/residual_gate_norm_scale_shift/configs/device_name=$t.json"
done
run A1; run B1 --device TRYB; run C1 --device TRYC; run D1 --device TRYD
run D2 --device TRYD; run C2 --device TRYC; run B2 --device TRYB; run A2
for v in B C D; do
  echo "== $v / A (gate=bf1c layout=bc)" >> $S
  python3 scripts/abba_cases.py $R/A1.json $R/${v}1.json $R/${v}2.json $R/A2.json > $R/cases-$v.txt 2>&1
  grep "gate=bf1c layout=bc" $R/cases-$v.txt | cut -c1-150 >> $S
done
grep "^noise" $R/cases-B.txt | cut -c1-200 >> $S
cp $S $R/
tar cJf $OUT/ab.tar.xz -C $OUT ab && rm -rf $R
cat $S
