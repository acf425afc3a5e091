#!/usr/bin/env bash
# On the GPU machine: ncu as `ako iterate --ncu` runs it (its sections, mangled name, launch-skip
# 1), on one rmsnorm case, with the whole ncu log kept; then the same with a long case timeout
# (does ako's per-launch watchdog stop the replay?) and with launch-skip 0.  OUT=out scripts/gpu-ncu-debug.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
NCU=${AKO_NCU:-/usr/local/cuda/bin/ncu}
K=_Z14rmsnorm_kernelI13__nv_bfloat16Lb1ELi256ELi4ELi1ELi3EEvPT_PKS1_S4_iif
RUN="bundle/bin/ako run task rmsnorm --shapes flux1-single --dtypes bf16 --no-cupti --no-checks --trials 1 --max-time 0.05 --no-progress --color never"
probe() {
  local name=$1 skip=$2; shift 2
  timeout 120 $NCU --clock-control none --target-processes all --section MemoryWorkloadAnalysis --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats --kernel-name-base mangled --kernel-name $K \
    --launch-skip "$skip" --launch-count 1 -f -o "$OUT/$name" --log-file "$OUT/$name.log" $RUN "$@" > "$OUT/$name.out" 2>&1
  echo "$name: ncu rc $? report $([ -f "$OUT/$name.ncu-rep" ] && echo yes || echo no)" | tee -a "$OUT/summary.txt"
}
probe as-iterate 1
probe case-timeout-600 1 --case-timeout 600
probe skip0 0
tail -20 "$OUT/as-iterate.log"
