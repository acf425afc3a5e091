#!/usr/bin/env bash
# Session 25, call 1 (nvidia-h200-x2; carry bundle-x). Issue 15's state, fresh, and what bounds
# its within-reach misses. The bundle through scripts/gpu-unpack-bundle.sh (its first GPU use).
# GPU 0: `ako run task T --size-copy --json` for gated_act, qknorm, rope, qknorm_rope and
#   scripts/engine_table.py on each (the bars counted, each miss labelled).
# GPU 1: ncu (SpeedOfLight, MemoryWorkloadAnalysis, LaunchStats, Occupancy, WarpStateStats) on the
#   solution kernel of the within-reach misses: gated_act's ungated gelu_tanh (flux1-image,
#   ltx-video), qknorm's wan13b-480p / wan14b-480p, rope's and qknorm_rope's partial-r64, and
#   FlashInfer's rope on partial-r64 beside it.
# Back: summary.txt, gpu0.tar.xz, gpu1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
t0=$(date +%s)
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1
echo "gpu-unpack-bundle rc=$? ($(( $(date +%s)-t0 )) s): $(tail -1 $OUT/unpack.txt)" >> $S
A=$PWD/bundle/bin/ako
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $OUT/smi.txt 2>&1
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

gpu1() {
  local R=$OUT/g1; mkdir -p $R
  export CUDA_VISIBLE_DEVICES=1 AKO_CACHE_DIR=/tmp/ako-cache1
  # task dtype shape regex(demangled kernel name) tag
  while read -r task dtype shape regex tag; do
    local rep=$R/ncu-$tag t1=$(date +%s)
    timeout 150 "$NCU" --clock-control none --target-processes all --kernel-name-base demangled \
      --kernel-name "regex:$regex" --launch-skip 6 --launch-count 1 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats \
      --section SchedulerStats -f -o "$rep" \
      $A run task "$task" --shapes "$shape" --dtypes "$dtype" --no-checks --no-progress --max-time 0.002 \
      --no-cupti --trials 1 --case-timeout 120 > "$rep.log" 2>&1
    local rc=$?
    "$NCU" --import "$rep.ncu-rep" --csv --page details > "$rep.csv" 2>/dev/null
    echo "== $tag rc=$rc ($(( $(date +%s)-t1 )) s)" >> $R/ncu-summary.txt
    python3 - "$rep.csv" >> $R/ncu-summary.txt <<'PY'
import csv, sys
try: rows = list(csv.DictReader(open(sys.argv[1])))
except Exception as e: print("  no csv:", e); sys.exit()
want = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Hit Rate", "L2 Hit Rate", "Compute (SM) Throughput",
        "Block Size", "Grid Size", "Registers Per Thread", "Waves Per SM", "Achieved Occupancy",
        "Theoretical Occupancy", "Mem Busy", "Max Bandwidth", "Issued Warp Per Scheduler", "No Eligible"]
seen = {}
for r in rows:
    n = r.get("Metric Name", "")
    if n in want and n not in seen: seen[n] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}".strip()
if rows: print("  kernel:", rows[0].get("Kernel Name", "?")[:160])
for n in want:
    if n in seen: print(f"  {n}: {seen[n]}")
for r in rows:  # the stall reasons ncu names in its rule text
    if r.get("Section Name") == "WarpStateStats" and r.get("Rule Name"):
        print("  rule:", r.get("Rule Description", "")[:400]); break
PY
  done <<'LIST'
gated_act bf16 flux1-image gated_act_kernel<__nv_bfloat16,\s*(\(Act\)3|Act::gelu_tanh) gelu_tanh-flux1-image-bf16
gated_act bf16 ltx-video gated_act_kernel<__nv_bfloat16,\s*(\(Act\)3|Act::gelu_tanh) gelu_tanh-ltx-video-bf16
qknorm bf16 wan13b-480p qknorm_kernel qknorm-wan13b-bf16
qknorm bf16 wan14b-480p qknorm_kernel qknorm-wan14b-bf16
rope bf16 partial-r64 rope_kernel rope-partial-r64-bf16
rope bf16 partial-r64 [Rr]ope.*[Kk]ernel|BatchQKApplyRotary flashinfer-rope-partial-r64-bf16
qknorm_rope bf16 partial-r64 qknorm_rope_kernel qknorm_rope-partial-r64-bf16
LIST
  tar cJf $OUT/gpu1.tar.xz -C $OUT g1 && rm -rf $R
}
gpu1 &

export CUDA_VISIBLE_DEVICES=0 AKO_CACHE_DIR=/tmp/ako-cache0
R=$OUT/g0; mkdir -p $R
for t in gated_act qknorm rope qknorm_rope; do
  t1=$(date +%s)
  timeout 280 $A run task $t --size-copy --no-progress --json $R/$t.json > $R/$t.txt 2>&1
  echo "== $t full run rc=$? ($(( $(date +%s)-t1 )) s): $(grep -E '^CORRECT|^RUNTIME' $R/$t.txt | tr '\n' ' ')" >> $S
  python3 scripts/engine_table.py $R/$t.json > $R/$t-engine-table.txt 2>&1
  python3 scripts/engine_table.py --by-shape --markdown $R/$t.json > $R/$t-by-shape.md 2>&1
  grep -E "^\| $t|^task|^ako vs|^slower|^under|within reach|beyond" $R/$t-engine-table.txt | cut -c1-260 | head -40 >> $S
done
tar cJf $OUT/gpu0.tar.xz -C $OUT g0 && rm -rf $R
wait
echo "== GPU 1 ncu" >> $S
tar xJf $OUT/gpu1.tar.xz -O g1/ncu-summary.txt >> $S 2>/dev/null
cat $S
