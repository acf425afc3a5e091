#!/usr/bin/env bash
# Session 13, call 10, on nvidia-h200-x2 (carry bundle): issue 19's first measurement on two GPUs.
# The same rmsnorm tune (`--strategy random --seed 7 --budget ${BUDGET:-48}`, every class of the
# H200 config) on one GPU (`--gpus 0,`) and on both (`--gpus all`), each with its own database,
# after one `--compile-only` pass of the same variants warmed the kernel cache (so neither run
# pays the compiles the other did not); then the winners of the two compared class by class.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
A=bundle/bin/ako
L=$OUT/logs; mkdir -p $L; S=$OUT/summary.txt; : > $S
date -u +%FT%TZ > $L/start.txt
nvidia-smi -L > $L/gpus.txt; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm --format=csv >> $L/gpus.txt
echo "gpus: $(grep -c '^GPU' $L/gpus.txt)" >> $S
ARGS="task rmsnorm --strategy random --seed 7 --budget ${BUDGET:-48} --no-progress"
t0=$(date +%s.%N)
timeout 120 $A tune $ARGS --compile-only --db $OUT/warm.jsonl > $L/warm.txt 2>&1; rc=$?
t1=$(date +%s.%N); echo "compile-only rc=$rc $(python3 -c "print(round($t1-$t0,1))") s: $(grep -E '^TUNE' $L/warm.txt | head -1 | cut -c1-200)" >> $S
timeout 180 $A tune $ARGS --gpus 0, --db $OUT/one.jsonl --json $OUT/one.json > $L/one.txt 2>&1; rc=$?
t2=$(date +%s.%N); echo "one GPU rc=$rc $(python3 -c "print(round($t2-$t1,1))") s: $(grep -E '^TUNE' $L/one.txt | head -1 | cut -c1-200)" >> $S
timeout 150 $A tune $ARGS --gpus all --db $OUT/two.jsonl --json $OUT/two.json > $L/two.txt 2>&1; rc=$?
t3=$(date +%s.%N); echo "two GPUs rc=$rc $(python3 -c "print(round($t3-$t2,1))") s: $(grep -E '^TUNE' $L/two.txt | head -1 | cut -c1-200)" >> $S
grep -E 'PIPELINE|GPUs|lane' $L/two.txt | head -5 >> $S
python3 - $OUT/one.json $OUT/two.json >> $S 2>&1 <<'PY'
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
def winners(d):
    return {c["name"]: (c.get("winner"), c.get("winner_us") or c.get("score_us")) for c in d.get("classes", [])}
w1, w2 = winners(one), winners(two)
same = sum(1 for k in w1 if w1[k][0] == w2.get(k, (None,))[0])
print(f"classes {len(w1)}; same winner on {same}")
for k in w1:
    if w1[k][0] != w2.get(k, (None,))[0]:
        print(f"  {k}: one {w1[k]} two {w2.get(k)}")
for key in ("wall_s", "measured", "variants"):
    print(key, one.get(key), two.get(key))
PY
date -u +%FT%TZ > $L/end.txt
xz -9 $OUT/*.jsonl
tar cJf $OUT/call10.tar.xz -C $OUT logs && rm -rf $L
cat $S
