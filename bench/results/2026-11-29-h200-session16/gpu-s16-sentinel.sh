#!/usr/bin/env bash
# Session 16, call 5 (carry bundle, built with the drift sentinels): session 13's issue-19 check
# again (`ako tune task rmsnorm --strategy random --seed 7 --budget 48`, kernel cache warmed by a
# --compile-only pass, one GPU then every GPU, each its own database), to see the sentinels'
# cost against session 13's walls (57.4 s / 31.5 s) and whether they fire; then the GPU tests that
# drive `ako tune` (MultiGpuTune, KillTune) and RunRmsnorm.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv > $L/gpus.txt
echo "gpus: $(($(wc -l < $L/gpus.txt) - 1)), cores: $(nproc)" >> $S
ARGS="task rmsnorm --strategy random --seed 7 --budget 48 --no-progress"
lines() { grep -E '^TUNE|^drift|^STOPPED' $1 | cut -c1-300; }
timeout 120 $A tune $ARGS --compile-only --db $OUT/warm.jsonl > $L/warm.txt 2>&1; echo "compile-only rc=$?" >> $S
timeout 150 $A tune $ARGS --gpus 0, --db $OUT/one.jsonl --json $OUT/one.json > $L/one.txt 2>&1; echo "one GPU rc=$?" >> $S; lines $L/one.txt >> $S
timeout 120 $A tune $ARGS --gpus all --db $OUT/two.jsonl --json $OUT/two.json > $L/two.txt 2>&1; echo "all GPUs rc=$?" >> $S; lines $L/two.txt >> $S
AKO_BIN=$PWD/$A AKO_ROOT=$PWD timeout ${TEST_LIMIT:-170} bundle/bin/ako_gpu_tests --gtest_filter='MultiGpuTune.*:KillTune.*:RunRmsnorm.*' \
  > $OUT/gpu-tests.log 2>&1; echo "GPU tests rc=$?" >> $S
grep -E '^\[ *(OK|FAILED|PASSED|SKIPPED) |ako tune rmsnorm' $OUT/gpu-tests.log >> $S
date -u +%FT%TZ > $L/end.txt
xz -9 $OUT/*.jsonl
tar cJf $OUT/logs.tar.xz -C $OUT logs && rm -rf $L
cat $S
