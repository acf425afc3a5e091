#!/usr/bin/env bash
# Session 35, call 13 (nvidia-h200; carry bundle-x; RUNS=second for call 14's runs). Measurement: scale_shift's wan13b bf16 same-dtype [B, C] case ran
# 8-10% slower than its fp16 twin (same class, same machine code) at every two-rows-a-thread point with ROW_CACHE 1, in
# every `ako run` of calls 1, 2 and 12, but not in the tune's runs (call 12) nor in SGLang's process. If it belongs to
# where the case's tensors fall in `ako run`'s allocation sequence, the case run alone (or after other cases) moves it.
# Point P: TX 64, TY 8, ROWS_PER_THREAD 2, ROW_CACHE 1, STORE_CS 0 (call 2's W0). Runs, each twice:
#   all six cases; the one case alone; the bf16 cases only; all six with another input seed.
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
R=$OUT/runs; mkdir -p $R
P="--param TX=64 --param TY=8 --param ROWS_PER_THREAD=2 --param ROW_CACHE=1 --param STORE_CS=0"
run() {  # tag args... (--shapes wan13b-480p unless SH names others)
  local tag=$1; shift
  timeout 60 bundle/bin/ako run task scale_shift --shapes ${SH:-wan13b-480p} --no-checks --no-progress --device "NVIDIA H200" $P "$@" \
    --json $R/$tag.json > $R/$tag.txt 2>&1
  python3 - $R/$tag.json $tag >> $S <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cs = [c for c in d["cases"] if c.get("kind") == "compare" and c.get("verdict") == "correct"]
print(sys.argv[2].ljust(14), " | ".join(f'{c["shape"][:8]} {c["dtype"]} {c["axes"]["layout"]} {c["axes"]["mod_dtype"]} {c["solution_time"]["iqm_us"]:.2f}' for c in cs))
PY
}
if [ "${RUNS:-first}" = first ]; then
  for i in 1 2; do
    run all-$i
    run alone-$i --dtypes bf16 --where "layout == 'bc' && mod_dtype == 'same'"
    run bf16-$i --dtypes bf16
    run seed7-$i --seed 7
  done
else  # call 14: is it the first case's placement? fp16's twin alone (then first), and bf16's after other cases
  for i in 1 2; do
    run fp16-alone-$i --dtypes fp16 --where "layout == 'bc' && mod_dtype == 'same'"
    SH=text-512,wan13b-480p run bf16-after-$i --dtypes bf16,fp16 --where "layout == 'bc' && mod_dtype == 'same'"
    run fp16-first-$i --dtypes fp16
  done
fi
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
