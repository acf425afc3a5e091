#!/usr/bin/env bash
# Session 17 (session 16's script with the drift sentinels' lines in the summary), on nvidia-h200-x2 (carry bundle): issue 19's bar, the rmsnorm *exhaustive* tune
# (bf16, as the H100's 4869-variant reference run) on one GPU and on two, each with its own
# database, kernel cache warm for both (a --compile-only pass of the same variants first).
#   STEP=warm-two  OUT=... bash gpu-s17-tune.sh   # compile-only pass, then --gpus all
#   STEP=one       OUT=... bash gpu-s17-tune.sh   # --gpus 0, (rerun to resume if --time stopped it)
# The kernel cache and the databases live in build-devcache/ (ignored by git: kept between
# calls while the machine stays warm); a step that finds the cache cold warms it first and says so.
set -uo pipefail
D=$PWD/build-devcache; mkdir -p $D
export AKO_CACHE_DIR=$D/kernels
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv > $L/gpus.txt
echo "gpus: $(($(wc -l < $L/gpus.txt) - 1)), cores: $(nproc), step ${STEP}" >> $S
ARGS="task rmsnorm --strategy exhaustive --dtypes bf16 --no-progress"
secs() { python3 -c "print(round($2-$1,1))"; }
tune_line() { grep -E '^TUNE|^STOPPED|^PIPELINE|^GPUs|^drift' $1 | cut -c1-260; }
warm() {
  local t0=$(date +%s.%N)
  timeout 400 $A tune $ARGS --compile-only --db $D/warm.jsonl > $L/warm.txt 2>&1; local rc=$?
  echo "compile-only rc=$rc $(secs $t0 $(date +%s.%N)) s" >> $S; tune_line $L/warm.txt >> $S
  $A cache stats > $L/cache-stats.txt 2>&1; head -3 $L/cache-stats.txt >> $S
}
case "$STEP" in
  warm-two)
    warm
    t0=$(date +%s.%N)
    timeout 560 $A tune $ARGS --gpus all --time ${TWO_TIME:-420} --db $D/two.jsonl --json $OUT/two.json > $L/two.txt 2>&1; rc=$?
    echo "two GPUs rc=$rc $(secs $t0 $(date +%s.%N)) s" >> $S; tune_line $L/two.txt >> $S
    cp $D/two.jsonl $OUT/ ;;
  one)
    if [ ! -s $D/warm.jsonl ]; then echo "cache cold (a fresh machine): warming it first" >> $S; warm; fi
    t0=$(date +%s.%N)
    timeout 580 $A tune $ARGS --gpus 0, --time ${ONE_TIME:-500} --db $D/one.jsonl --json $OUT/one.json > $L/one.txt 2>&1; rc=$?
    echo "one GPU rc=$rc $(secs $t0 $(date +%s.%N)) s" >> $S; tune_line $L/one.txt >> $S
    cp $D/one.jsonl $OUT/ ;;
  *) echo "STEP must be warm-two or one" >&2; exit 2 ;;
esac
date -u +%FT%TZ > $L/end.txt
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
