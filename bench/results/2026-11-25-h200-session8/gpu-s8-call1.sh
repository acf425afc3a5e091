#!/usr/bin/env bash
# Session 8, call 1: (A) do the wan13b two-mode mixes vary within one allocation (repeats of the
# same case on the same buffers) as much as across processes? (B) residual fusion: CuTe-like
# launch shapes (one CTA per token, modulation loaded early) against the committed config.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
B=bundle-exp/bin/ako
L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $L/smi.txt
$B run task rmsnorm --shapes wan13b-480p --dtypes bf16 --no-checks --no-progress > $L/warm.txt 2>&1
for i in 1 2 3; do
  AKO_EXP_REPEATS=8 AKO_EXP_LOG=$OUT/modes-gap0.jsonl $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/modes-gap0-$i.txt 2>&1
done
for i in 1 2; do
  AKO_EXP_REPEATS=6 AKO_EXP_GAP_MS=100 AKO_EXP_LOG=$OUT/modes-gap100.jsonl $B run task rmsnorm --shapes wan13b-480p --no-checks --no-progress > $L/modes-gap100-$i.txt 2>&1
done
T=residual_gate_norm_scale_shift
run() { local name=$1 shape=$2; shift 2
  $B run task $T --shapes $shape --dtypes bf16 --no-checks --no-progress --json $L/res-$shape-$name.json "$@" > $L/res-$shape-$name.txt 2>&1
  echo "$shape $name rc=$? $(python3 -c "
import json,sys
j=json.load(open('$L/res-$shape-$name.json'))
print(' '.join('%.2f'%c['solution_time']['iqm_us'] if c.get('solution_time') else c['verdict'] for c in j['cases'] if c['kind']=='compare'))" 2>&1)" >> $OUT/residual.txt
}
for shape in wan14b-480p; do
  run base $shape
  run 640-1-em0 $shape --param BLOCK=640 --param ROWS_PER_BLOCK=1 --param CHUNKS=1 --param VEC=8 --param EARLY_MOD=0
  run 640-1-em1 $shape --param BLOCK=640 --param ROWS_PER_BLOCK=1 --param CHUNKS=1 --param VEC=8 --param EARLY_MOD=1
  run 128-5-em1-mb1 $shape --param BLOCK=128 --param ROWS_PER_BLOCK=1 --param CHUNKS=5 --param VEC=8 --param EARLY_MOD=1 --param MIN_BLOCKS=1
  run 128-5-em0-mb1 $shape --param BLOCK=128 --param ROWS_PER_BLOCK=1 --param CHUNKS=5 --param VEC=8 --param EARLY_MOD=0 --param MIN_BLOCKS=1
  run 256-5x2-em1 $shape --param EARLY_MOD=1
  run base2 $shape
done
for shape in flux2-single hunyuan-720p; do
  run base $shape
  run 384-1-em0 $shape --param BLOCK=384 --param ROWS_PER_BLOCK=1 --param CHUNKS=1 --param VEC=8 --param EARLY_MOD=0
  run 384-1-em1 $shape --param BLOCK=384 --param ROWS_PER_BLOCK=1 --param CHUNKS=1 --param VEC=8 --param EARLY_MOD=1
  run 768-2-em1 $shape --param BLOCK=768 --param ROWS_PER_BLOCK=2 --param CHUNKS=1 --param VEC=8 --param EARLY_MOD=1
done
python3 - <<'PY' > $OUT/modes-summary.txt
import json, os, collections
for f in ["modes-gap0.jsonl", "modes-gap100.jsonl"]:
    p = os.path.join(os.environ["OUT"], f)
    if not os.path.exists(p): print(f, "missing"); continue
    rows = [json.loads(l) for l in open(p)]
    by = collections.defaultdict(list)
    for r in rows: by[(r["label"], r["pid"])].append(r)
    print("==", f)
    for (label, pid), rs in sorted(by.items()):
        print(f"{label:32} pid {pid:7}", " ".join("%.2f(%d)" % (r["solution"]["iqm"], r["solution"]["n"]) for r in rs))
PY
cat $OUT/modes-summary.txt $OUT/residual.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
