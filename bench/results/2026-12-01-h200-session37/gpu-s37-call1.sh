#!/usr/bin/env bash
# Session 37, call 1 (nvidia-h200; carry bundle-x, peers). The session's one call (583 s of device time left).
# 1. Session 36's call 11, which its machine's shutdown cut off before any result came back: qknorm iteration 8 took
#    the fp32 division out of the per-head kernels; the across-heads kernels still divide by their run-time length
#    between the reduction and the stores. variants/qknorm-across-recip.cuh computes 1 / len with the loads in flight
#    (an rcp.rn before the reduction, its product after); NVRTC: the wan14b class 40 -> 48 registers (6 -> 5 blocks of
#    256 an SM), flux1's 32 -> 40, the others the same. Prediction (session 36): across heads 0.3-0.7% faster on
#    wan13b, qwen-image, hunyuan and ltx-video, wan14b and flux1 level or slower (occupancy); per head level.
#    A B B A (scripts/gpu-abba.sh), every case, --size-copy.
# 2. Issue 15's four families, each run again on the unchanged tree (qknorm x2, rope x3, qknorm_rope x3, gated_act x3,
#    `ako run --size-copy`, the engines' columns), and `scripts/engine_table.py --runs` over each family's runs: which
#    misses of the bar stay in every run and which come and go (session 36 counted each family once or twice).
#    Prediction: every "beyond a copy" miss in every run; gated_act's ties with SGLang (0.995-1.000x) a different set
#    each run; qknorm_rope's flux1 / qwen-image fp16 and rope's partial-r64 on the 1.1x line in some runs only.
# Back: summary.txt (printed last), abba.tar.xz, runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session37
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
R=$OUT/abba; mkdir -p $R
OUT=$R B_SOLUTION=$D/variants/qknorm-across-recip.cuh LABEL="across 1/len early / tree" RUN_TIMEOUT=120 \
  scripts/gpu-abba.sh qknorm --no-checks --size-copy > $R/log.txt 2>&1
echo "abba rc=$? ($(( $(date +%s) - T0 )) s)" >> $S
cat $R/summary.txt >> $S
grep "across_heads=True" $R/cases.txt | cut -c1-60,90-150 >> $S
tar cJf $OUT/abba.tar.xz -C $OUT abba && rm -rf $R
T=$OUT/runs; mkdir -p $T
for spec in "qknorm 2" "rope 3" "qknorm_rope 3" "gated_act 3"; do
  set -- $spec
  for r in $(seq 1 $2); do
    timeout 100 bundle/bin/ako run task $1 --size-copy --no-progress --json $T/$1-$r.json > $T/$1-$r.txt 2>&1
    echo "ako run $1 ($r) rc=$?: $(grep -E '^CORRECT|^BASELINE' $T/$1-$r.txt | cut -c1-110 | tr '\n' ' ')" >> $S
  done
  python3 scripts/engine_table.py --runs $T/$1-*.json > $T/$1-runs.txt 2>&1
  cut -c1-220 $T/$1-runs.txt >> $S
done
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $T
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
