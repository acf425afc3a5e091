#!/usr/bin/env bash
# Session 34, call 7 (nvidia-h200, warm after call 6, which brought the CuTe DSL deps parts 1-6; carry
# .sglang-deps/py312-7, py312-8, bundle-x, peers, .sgl-proof-ln34b): 1. session 32's prepared-ncu-residual-flux1.sh as it was, residual
# fusion iteration 34's Next: ncu on flux1-single's no-affine [B, C] LayerNorm case (same-dtype modulation, [B, C]
# gate), the one image case behind CuTe DSL (0.968x in fp16, 1.004x in bf16, call 2), both dtypes: ako's class
# kernel (`ako run`) and SGLang's CuTe DSL kernel (bench/peer_timing.py, the peer sglang_cute), one launch each
# after warm-ups, no clock control; then each report's SASS with executed counts. 2. If call 6 left /tmp/s34-fp32-ok
# (its A B B A kept the two fp32 affine classes): layernorm's port of this tree (.sgl-proof-ln34b: scripts/sglang-port-check.sh
# --task layernorm, then --prepare) through SGLang's JIT and tvm-ffi on every case, then against Triton `norm_infer`
# in SGLang's process on flux1-single and qwen-image (three placements).
# Back: summary.txt (printed last), ncu.tar.xz, and with 2: logs.tar.xz, ln.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$?: $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
N=$OUT/ncu; mkdir -p $N
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section SourceCounters"
WH="!affine && layout == 'bc' && gate == 'bc' && mod_dtype == 'same' && norm == 'layer'"
digest() {  # name
  "$NCU" --import $N/$1.ncu-rep --csv --page details > $N/$1.csv 2>/dev/null
  "$NCU" --import $N/$1.ncu-rep --page source --csv --print-source sass > $N/$1-sass.csv 2>/dev/null
  python3 - $N/$1.csv >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput", "Registers Per Thread",
        "Grid Size", "Block Size", "Achieved Occupancy", "Issued Warp Per Scheduler", "Warp Cycles Per Issued Instruction",
        "Executed Instructions", "SM Active Cycles", "Elapsed Cycles"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:150])
print("  " + "; ".join(f"{n}: {seen[n]}" for n in want if n in seen))
PY
}
for dt in fp16 bf16; do
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name regex:residual_gate_norm_scale_shift_kernel \
    --launch-skip 1 --launch-count 1 $SECTIONS -f -o $N/ako-$dt bundle/bin/ako run task residual_gate_norm_scale_shift \
    --device "NVIDIA H200" --shapes flux1-single --dtypes $dt --where "$WH" --no-cupti --no-checks --trials 1 \
    --max-time 0.05 --case-timeout 300 --no-progress > $N/ako-$dt.log 2>&1
  echo "ncu ako $dt rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest ako-$dt
  timeout 200 "$NCU" --clock-control none --target-processes all --kernel-name regex:kernel_cutlass_kernel_sglang \
    --launch-skip 5 --launch-count 1 $SECTIONS -f -o $N/cute-$dt python3 bench/peer_timing.py residual_gate_norm_scale_shift \
    --shapes flux1-single --dtypes $dt --where "$WH" --peers sglang_cute --deps /tmp/sglang-deps/site --samples 50 \
    > $N/cute-$dt.log 2>&1
  echo "ncu cute $dt rc=$? ($(( $(date +%s) - T0 )) s)" >> $S; digest cute-$dt
done
L=$OUT/logs; mkdir -p $L
if [ -f /tmp/s34-fp32-ok ]; then
  t1=$(date +%s)
  env OUT=$L/ln SGL_PROOF=$PWD/.sgl-proof-ln34b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-ln TVMFFI_TARGET=/tmp/tvmffi-s34b-ln \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s34b-ln timeout 150 scripts/sglang-gpu-check.sh --task layernorm > $L/ln-proof.txt 2>&1
  echo "layernorm proof rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $L/ln-proof.txt | tail -1)" >> $S
  grep -E '^all [0-9]+ cases|^tvm_ffi' $L/ln-proof.txt >> $S
  T=$OUT/ln; mkdir -p $T; t1=$(date +%s)
  OUT=$T SGL_PROOF=$PWD/.sgl-proof-ln34b SGL_GPU_CHECK_BUILD=/tmp/sgc-build-lnt TVMFFI_TARGET=/tmp/tvmffi-s34b-lnt \
    TVM_FFI_CACHE_DIR=/tmp/tvmffi-cache-s34b-lnt timeout 200 scripts/sglang-gpu-check.sh --task layernorm --no-wrapper \
    --engine-timing --timing-only --placements 3 --timing-shapes flux1-single,qwen-image > $T/log.txt 2>&1
  echo "layernorm timing rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E 'SGLANG-GPU-CHECK' $T/log.txt | tail -1)" >> $S
  grep -E 'copy bandwidth|cases timed' $T/log.txt >> $S
  f=$T/engine-timing-layernorm.json
  if [ -f $f ]; then
    python3 scripts/engine_table.py $f > $T/tables-layernorm.txt 2>&1
    grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|fp32 affine' $T/tables-layernorm.txt | cut -c1-600 >> $S
    xz -9 $f
  fi
  xz -9 $T/log.txt
  tar cJf $OUT/ln.tar.xz -C $OUT ln && rm -rf $T
fi
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
cat $S
