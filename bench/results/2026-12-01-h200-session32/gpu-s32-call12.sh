#!/usr/bin/env bash
# Session 32, call 12 (nvidia-h200; carry bundle-x): layernorm with the chunks the task's constraint keeps inside
# the row loaded, summed and stored without a bounds check (variants/layernorm-sure-chunks.cuh; call 10's ncu:
# ako's zimage kernel executes 2.9% more instructions than SGLang's Triton norm_infer, its excess integer compares,
# address arithmetic and divergent-branch markers) against the committed kernel, A B B A by --solution, the
# committed H200 config, on zimage, hunyuan-720p, wan13b-480p, qwen-image and flux1-single, every case but the fp32
# affine ones (two of those spill under the variant: the static check refuses them).
# Back: summary.txt (printed last), abba.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
R=$OUT/abba; mkdir -p $R
one() {  # tag [args]
  local tag=$1; shift
  timeout 80 bundle/bin/ako run task layernorm --shapes zimage,hunyuan-720p,wan13b-480p,qwen-image,flux1-single \
    --where "dtype != 'fp32' || !affine" --no-progress "$@" --json $R/$tag.json > $R/$tag.txt 2>&1
  echo "$tag rc=$? ($(( $(date +%s) - T0 )) s): $(grep -E '^CORRECT|^STATIC' $R/$tag.txt | tr '\n' ' ' | cut -c1-160)" >> $S
}
one A1; one B1 --solution $D/variants/layernorm-sure-chunks.cuh; one B2 --solution $D/variants/layernorm-sure-chunks.cuh; one A2
python3 scripts/abba_cases.py $R/A1.json $R/B1.json $R/B2.json $R/A2.json --label "sure chunks / committed" > $R/abba.txt 2>&1
grep -E "^sure|^noise" $R/abba.txt | cut -c1-600 >> $S
grep -E "zimage|hunyuan" $R/abba.txt | grep "affine=False" | cut -c1-160 >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
cat $S
