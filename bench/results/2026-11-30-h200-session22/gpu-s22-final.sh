#!/usr/bin/env bash
# Session 22, call 3 (nvidia-h200-x2; carry bundle-s, bundle-t/ako_gpu_tests.xz): the final configs
# (STATS 1 classes in the three tasks, norm_scale_shift's CuTe-shape classes on text-512-cfg).
#  GPU 0: `ako gate --update-baseline --threshold 5` for the three tasks, their H200 entries removed
#         first (STATS renamed every kernel; bench/baseline.json is the rewrite), then the
#         NormScaleShift GPU tests, then norm_scale_shift every case, A B B A against HEAD's config
#         (before/, device BEFORE);
#  GPU 1: the ResidualGateNormScaleShift and RunLayernorm GPU tests.
# Everything under $OUT/final.tar.xz; summary.txt printed last.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle-s/bin/ako
H=bench/results/2026-11-30-h200-session22
cp $H/before/nss-device_name=NVIDIA_H200.json solution/norm_scale_shift/configs/device_name=BEFORE.json
R=$OUT/final; mkdir -p $R; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $R/start.txt
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/smi.txt
NG=$(nvidia-smi -L | wc -l)
xz -dc bundle-t/ako_gpu_tests.xz > /tmp/ako_gpu_tests && chmod +x /tmp/ako_gpu_tests
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
for t in ("layernorm", "norm_scale_shift", "residual_gate_norm_scale_shift"): b["devices"]["NVIDIA H200"]["tasks"].pop(t)
open(p, "w").write(json.dumps(b, indent=2) + "\n")
PY
tests() {  # gpu filter name limit
  CUDA_VISIBLE_DEVICES=$1 AKO_BIN=$PWD/$A AKO_ROOT=$PWD LD_LIBRARY_PATH=$PWD/bundle-s/lib timeout $4 /tmp/ako_gpu_tests \
    --gtest_filter="$2" > $R/$3-tests.log 2>&1
  echo "$3 tests rc=$?: $(grep -E '^\[  (PASSED|FAILED)  \]|^\[       OK \]|tests? from .* ran' $R/$3-tests.log | tr '\n' ' ')" >> $R/runs-gpu$1.txt
}
run() {  # gpu tag task device [args]
  local g=$1 tag=$2 task=$3 dev=$4; shift 4
  CUDA_VISIBLE_DEVICES=$g timeout 120 $A run task $task --device "$dev" --no-progress --json $R/$tag.json "$@" \
    > $R/$tag.txt 2>&1
  echo "$tag rc=$?: $(grep -E '^CORRECT|^RUNTIME' $R/$tag.txt | tr '\n' ' ')" >> $R/runs-gpu$g.txt
}
half0() {
  local g=$1 t=norm_scale_shift; t1=$(date +%s)
  CUDA_VISIBLE_DEVICES=$g timeout 300 $A gate --baseline bench/baseline.json --update-baseline --threshold 5 \
    --tasks layernorm,norm_scale_shift,residual_gate_norm_scale_shift --no-progress > $R/gate-update.txt 2>&1
  echo "gate --update-baseline rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^GATE|refusing' $R/gate-update.txt | cut -c1-300)" >> $R/runs-gpu$g.txt
  cp bench/baseline.json $OUT/baseline.json
  tests $g 'NormScaleShift.*' nss 150
  run $g nss-A1 $t BEFORE; run $g nss-B1 $t "NVIDIA H200"; run $g nss-B2 $t "NVIDIA H200"; run $g nss-A2 $t BEFORE
}
half1() { tests $1 'ResidualGateNormScaleShift.*' res 400; tests $1 'RunLayernorm.*' ln 150; }
if [ "$NG" -ge 2 ]; then ( half0 0 ) & ( half1 1 ) & wait; else half0 0; half1 0; fi
date -u +%FT%TZ > $R/end.txt
for g in 0 1; do [ -f $R/runs-gpu$g.txt ] && { echo "== GPU $g" >> $S; cat $R/runs-gpu$g.txt >> $S; }; done
python3 scripts/abba_cases.py $R/nss-{A1,B1,B2,A2}.json > $R/nss-cases.txt 2>&1
echo "== nss: final / HEAD's config" >> $S; tail -2 $R/nss-cases.txt >> $S
awk '/B\/A/ { for (i = 1; i <= NF; ++i) if ($i == "B/A" && ($(i+1) > 1.01 || $(i+1) < 0.99)) print }' $R/nss-cases.txt | cut -c1-150 >> $S
tar cJf $OUT/final.tar.xz -C $OUT final && rm -rf $R
cat $S
