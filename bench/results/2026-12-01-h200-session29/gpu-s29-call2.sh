#!/usr/bin/env bash
# Session 29, call 2 (nvidia-h200; carry bundle-x, .sgl-proof-ln, peers).
# 1. ncu on layernorm's committed kernel, bf16, affine and no-affine, qwen-image and wan13b-480p (the affine
#    form 5-6% slower on both, at the same registers on wan13b): what the affine form waits on.
# 2. Issue 15's four tasks, `ako run --size-copy` with their engine columns (current counts).
# 3. layernorm's port (.sgl-proof-ln, session 28's CPU port check) against SGLang's Triton norm_infer
#    in one process at three placements (session 28's call 8 script).
# Back: summary.txt, ncu.tar.xz, i15.tar.xz, ln.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
N=$OUT/ncu; mkdir -p $N
T0=$(date +%s)
for shape in qwen-image wan13b-480p; do for form in true false; do
  rep=$N/$shape-$form
  timeout 120 "$NCU" --clock-control none --target-processes all --kernel-name-base demangled \
    --kernel-name "regex:layernorm_kernel<__nv_bfloat16, $form" --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section InstructionStats --section LaunchStats \
    --section SchedulerStats --section SourceCounters -f -o $rep \
    bundle/bin/ako run task layernorm --shapes $shape --dtypes bf16 --no-checks --no-progress --max-time 0.002 \
    --no-cupti --trials 1 --case-timeout 300 > $rep.log 2>&1
  echo "ncu $shape affine=$form rc=$? $(( $(date +%s) - T0 ))s" >> $S
  "$NCU" --import $rep.ncu-rep --csv --page details > $rep.csv 2>/dev/null
  python3 - $rep.csv >> $S <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = ["Duration", "DRAM Throughput", "L1/TEX Hit Rate", "L2 Hit Rate", "Registers Per Thread", "Achieved Occupancy",
        "Theoretical Occupancy", "Executed Ipc Active", "Issue Slots Busy", "No Eligible", "Warp Cycles Per Issued Instruction",
        "Executed Instructions"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
print("  " + "; ".join(f"{k} {v}" for k, v in seen.items()))
PY
done; done
tar cJf $OUT/ncu.tar.xz -C $OUT ncu && rm -rf $N
I=$OUT/i15; mkdir -p $I
for t in gated_act qknorm rope qknorm_rope; do
  t1=$(date +%s)
  timeout 200 bundle/bin/ako run task $t --size-copy --no-progress --json $I/$t.json > $I/$t.txt 2>&1
  echo "== $t rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT' $I/$t.txt)" >> $S
  python3 scripts/engine_table.py $I/$t.json > $I/$t-engine-table.txt 2>&1
  python3 scripts/engine_table.py --by-shape --markdown $I/$t.json > $I/$t-by-shape.md 2>&1
  grep -E "^ako vs|^slower|^under" $I/$t-engine-table.txt | cut -c1-400 >> $S
done
tar cJf $OUT/i15.tar.xz -C $OUT i15 && rm -rf $I
echo "== layernorm vs Triton, 3 placements" >> $S
mkdir -p $OUT/lnrun   # its own OUT: the script starts its summary.txt afresh
LIMIT=200 OUT=$OUT/lnrun bash bench/results/2026-12-01-h200-session28/gpu-s28-call8.sh > /dev/null 2>&1
cat $OUT/lnrun/summary.txt >> $S; mv $OUT/lnrun/ln.tar.xz $OUT/ 2>/dev/null; rm -rf $OUT/lnrun
cat $S
