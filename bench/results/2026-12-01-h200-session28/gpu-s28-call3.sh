#!/usr/bin/env bash
# Session 28, call 3 (nvidia-h200-x2, or one H200 and all in turn; carry .sglang-deps/py312-1 .. py312-6 and bundle-x): the first six
# CuTe DSL deps parts onto the machine (scripts/gpu-sglang-deps.sh: exit 3 expected; calls 4 and 5
# follow on the warm machine), then, with the residual fusion's sweep classes (norm_scale_shift
# iteration 32): its H200 gate entry removed and rewritten by ako (`ako gate --update-baseline
# --threshold 5`: the zimage fp16 pinned kernel of iteration 29 and the six new classes get budgets), and
# the GPU tests `ResidualGateNormScaleShift.*`; then, while the call has time, the same launch sweep as
# call 1 on norm_scale_shift's 512-token cases (nss-sweep-sets.txt: the 10 sets its text-512-cfg classes
# hold and residual's S2 and S5), A N1..N12 N12..N1 A (ITERATIONS.md norm_scale_shift iteration 32's Next).
# Back: summary.txt, baseline.json, gate-update.txt, gpu-tests.txt, nss.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-sglang-deps.sh > $OUT/deps.txt 2>&1; echo "deps rc=$?: $(tail -1 $OUT/deps.txt)" >> $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
T=residual_gate_norm_scale_shift
NG=$(nvidia-smi -L | wc -l); G1=0; [ $NG -ge 2 ] && G1=1   # the sweep on GPU 1 beside GPU 0's work when there are two
gate_and_tests() {
python3 - <<'PY'
import json
p = "bench/baseline.json"; b = json.load(open(p))
b["devices"]["NVIDIA H200"]["tasks"].pop("residual_gate_norm_scale_shift")
open("/tmp/baseline-residual.json", "w").write(json.dumps(b, indent=2) + "\n")
PY
t0=$(date +%s)
CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 timeout 300 bundle/bin/ako gate --baseline /tmp/baseline-residual.json \
  --update-baseline --threshold 5 --tasks $T --no-progress > $OUT/gate-update.txt 2>&1
echo "$T gate --update-baseline rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^GATE|refusing|updated' $OUT/gate-update.txt | cut -c1-300)" >> $S
cp /tmp/baseline-residual.json $OUT/baseline.json
t0=$(date +%s)
CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0 AKO_BIN=$PWD/bundle/bin/ako AKO_ROOT=$PWD timeout 200 \
  bundle/bin/ako_gpu_tests --gtest_filter='ResidualGateNormScaleShift.*' > $OUT/gpu-tests.txt 2>&1
echo "ResidualGateNormScaleShift.* rc=$? ($(( $(date +%s)-t0 )) s): $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gpu-tests.txt | tr '\n' ' ')" >> $S
}
D=bench/results/2026-12-01-h200-session28
one() {  # tag [params...]; a set's run is skipped past 510 s into the call, A2 past 570
  local tag=$1; shift
  local limit=510; [ $tag = A2 ] && limit=570
  [ $(( $(date +%s) - T0 )) -lt $limit ] || { echo "nss $tag skipped: $(( $(date +%s) - T0 )) s into the call" >> $OUT/nss/rcs.txt; return; }
  local args=(); for p in "$@"; do args+=(--param "$p"); done
  CUDA_VISIBLE_DEVICES=$G1 AKO_CACHE_DIR=/tmp/ako-cache$G1 timeout 60 bundle/bin/ako run task norm_scale_shift --shapes text-512,text-512-cfg --no-progress \
    "${args[@]}" --json $OUT/nss/$tag.json > $OUT/nss/$tag.txt 2>&1
  echo "nss $tag rc=$? $(( $(date +%s) - T0 ))s: $(grep -E '^CORRECT|^RUNTIME' $OUT/nss/$tag.txt | tr '\n' ' ')" >> $OUT/nss/rcs.txt
}
sweep() {
  SETS=$(cut -d' ' -f1 $D/nss-sweep-sets.txt)
  one A1
  for s in $SETS; do one ${s}a $(grep "^$s " $D/nss-sweep-sets.txt | cut -d' ' -f2-); done
  for s in $(echo $SETS | tr ' ' '\n' | tac); do one ${s}b $(grep "^$s " $D/nss-sweep-sets.txt | cut -d' ' -f2-); done
  one A2
}
mkdir -p $OUT/nss
if [ $NG -ge 2 ]; then CUDA_VISIBLE_DEVICES=0 gate_and_tests & sweep & wait; else gate_and_tests; sweep; fi
SETS=$(cut -d' ' -f1 $D/nss-sweep-sets.txt)
for s in $SETS; do
  [ -f $OUT/nss/${s}b.json ] && [ -f $OUT/nss/A2.json ] || continue
  python3 scripts/abba_cases.py $OUT/nss/A1.json $OUT/nss/${s}a.json $OUT/nss/${s}b.json $OUT/nss/A2.json --label "$s / committed" > $OUT/nss/abba-$s.txt 2>&1
  grep -E "^$s / committed" $OUT/nss/abba-$s.txt >> $S
done
grep -E '^noise' $OUT/nss/abba-N1.txt >> $S 2>/dev/null
tail -3 $OUT/nss/rcs.txt >> $S
tar cJf $OUT/nss.tar.xz -C $OUT nss && rm -rf $OUT/nss
cat $S
