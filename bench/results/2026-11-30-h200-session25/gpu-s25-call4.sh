#!/usr/bin/env bash
# Session 25, call 4 (nvidia-h200-x2; carry bundle-x, peers).
# GPU 0: qknorm with the new class shape-wan14b-480p-across_heads (call 2's tune): the H200 gate
#   entry removed and rewritten, `RunQknorm.*`, the full `ako run --size-copy` and its engine table.
# GPU 1: ncu --set full on the residual fusion's wan13b affine fp32 per-frame LayerNorm kernel (bf16;
#   93.5% of copy in session 24, the copy-bar miss left in issue 14) and its no-affine sibling.
# Back: summary.txt, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
A=$PWD/bundle/bin/ako
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

gpu1() {
  local R=$OUT/g1; mkdir -p $R
  export CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1
  # The class's kernels (ncu prints template arguments as (int)128, (bool)1, (Norm)0): affine
  # <bf16, float, layer, bf1c, bc, true, 128, 8, 2, 3, 3, 1, 1, 1, 0, 1>, no-affine <..., false, 128, 8,
  # 2, 3, 3, 0, 1, 1, 0, 0> (its ungated twin matches too); rms has 10 where layer has 1 or 0.
  while IFS="|" read -r regex tag; do
    local rep=$R/ncu-$tag t1=$(date +%s)
    timeout 200 "$NCU" --clock-control none --target-processes all --kernel-name-base demangled \
      --kernel-name "regex:$regex" --launch-skip 4 --launch-count 1 --set full -f -o "$rep" \
      $A run task residual_gate_norm_scale_shift --shapes wan13b-480p --dtypes bf16 --no-checks --no-progress \
      --max-time 0.002 --no-cupti --trials 1 --case-timeout 180 > "$rep.log" 2>&1
    echo "== $tag rc=$? ($(( $(date +%s)-t1 )) s)" >> $R/ncu-summary.txt
    "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>>$R/ncu-summary.txt
    "$NCU" --import "$rep.ncu-rep" --page details --print-details all > "$rep.txt" 2>/dev/null
    grep -E "Kernel Name|^  [a-z_]+<|Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Shared|Bank|Registers Per|Achieved Occ|Theoretical Occ|Block Limit|Waves|No Eligible|Issued Warp|Stall|Wavefronts|L1/TEX Cache Throughput|L2 Cache Throughput|Memory Throughput" "$rep.txt" | head -60 >> $R/ncu-summary.txt
  done <<'LIST'
residual_gate_norm_scale_shift_kernel<__nv_bfloat16, float, .*.bool.1, .int.128, .int.8, .int.2, .int.3, .int.3, .int.1,|affine-fp32-bf1c
residual_gate_norm_scale_shift_kernel<__nv_bfloat16, float, .*.bool.0, .int.128, .int.8, .int.2, .int.3, .int.3, .int.0,|noaffine-fp32-bf1c
LIST
  tar cJf $OUT/gpu1.tar.xz -C $OUT g1
}
gpu1 &

export CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0
R=$OUT/g0; mkdir -p $R
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("qknorm")
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
timeout 200 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 --tasks qknorm --no-progress > $R/gate-update.txt 2>&1
echo "qknorm gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $R/gate-update.txt | cut -c1-300)" >> $S
cp bench/baseline.json $OUT/baseline.json
AKO_BIN=$A AKO_ROOT=$PWD timeout 240 bundle/bin/ako_gpu_tests --gtest_filter='RunQknorm.*' > $R/tests.txt 2>&1
echo "RunQknorm.* rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $R/tests.txt | tr '\n' ' ')" >> $S
timeout 200 $A run task qknorm --size-copy --no-progress --json $R/qknorm.json > $R/qknorm.txt 2>&1
echo "== qknorm full run rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/qknorm.txt | tr '\n' ' ')" >> $S
python3 scripts/engine_table.py $R/qknorm.json > $R/qknorm-engine-table.txt 2>&1
python3 scripts/engine_table.py --by-shape --markdown $R/qknorm.json > $R/qknorm-by-shape.md 2>&1
grep -E "wan1|^ako vs|^slower|^under" $R/qknorm-engine-table.txt | cut -c1-700 >> $S
tar cJf $OUT/gpu0.tar.xz -C $OUT g0
wait
cat $R/../g1/ncu-summary.txt >> $S 2>/dev/null
rm -rf $OUT/g0 $OUT/g1
cat $S
