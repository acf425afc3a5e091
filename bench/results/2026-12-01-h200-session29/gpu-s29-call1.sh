#!/usr/bin/env bash
# Session 29, call 1 (nvidia-h200; carry bundle-x): layernorm with each block normalising several rows in
# sequence, weight and bias loaded once a block into registers (variants/layernorm-rowloop.cuh; there
# ROWS_PER_BLOCK counts the rows a block takes in turn, WB_EARLY 1 requests the next row's x before the
# current row is stored). Per shape, A X1..Xn Xn..X1 A against the committed solution, every dtype and
# both forms (ITERATIONS.md layernorm iteration 9).
# Back: summary.txt, rl.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
V=bench/results/2026-12-01-h200-session29/variants/layernorm-rowloop.cuh
R=$OUT/rl; mkdir -p $R
nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv > $R/smi.txt 2>&1
declare -A GEOM=([qwen-image]="128:8:3:1 256:4:3:1" [flux2-single]="256:8:3:1 512:4:3:1"
                 [wan13b-480p]="64:8:3:1 128:4:3:1" [zimage]="128:8:4:0 512:8:1:0")
run() {  # shape tag [params...]
  local shape=$1 tag=$2; shift 2
  local a=(); for p in "$@"; do a+=(--param $p); done
  local sol=(); [ $# -gt 0 ] && sol=(--solution $V)
  timeout 60 bundle/bin/ako run task layernorm --shapes $shape --no-progress "${sol[@]}" "${a[@]}" \
    --json $R/$shape-$tag.json > $R/$shape-$tag.txt 2>&1
  echo "$shape $tag rc=$? $(grep -E '^CORRECT' $R/$shape-$tag.txt | cut -c1-60)" >> $R/log.txt
}
T0=$(date +%s)
for shape in qwen-image flux2-single wan13b-480p zimage; do
  sets=()
  for g in ${GEOM[$shape]}; do
    IFS=: read b v c st <<< "$g"
    for rpb in 2 4 8; do for e in 0 1; do
      sets+=("BLOCK=$b VEC=$v CHUNKS=$c STATS=$st ROWS_PER_BLOCK=$rpb WB_EARLY=$e X_L1=1 STORE_CS=0 BUDGET=0")
    done; done
  done
  printf '%s\n' "${sets[@]}" > $R/$shape-sets.txt
  run $shape A1
  for i in "${!sets[@]}"; do run $shape X$((i+1))a ${sets[$i]}; done
  for ((i=${#sets[@]}-1; i>=0; i--)); do run $shape X$((i+1))b ${sets[$i]}; done
  run $shape A2
  echo "$shape done $(( $(date +%s) - T0 ))s" >> $S
done
python3 - "$R" >> $S <<'PY'
import json, sys, glob, os
R = sys.argv[1]
def iqm(f):
    out = {}
    for c in (c for c in json.load(open(f))["cases"] if c.get("kind") == "compare"):
        key = f"{c['dtype']} {'affine' if c['flags'].get('affine') else 'noaffine'}"
        t = (c.get("solution_time") or {}).get("iqm_us")
        out[key] = (t if c.get("verdict") == "correct" else None, c.get("verdict"))
    return out
for shape in ["qwen-image", "flux2-single", "wan13b-480p", "zimage"]:
    try:
        a1, a2 = iqm(f"{R}/{shape}-A1.json"), iqm(f"{R}/{shape}-A2.json")
    except Exception as e:
        print(shape, "no A:", e); continue
    sets = open(f"{R}/{shape}-sets.txt").read().split("\n")
    print(f"== {shape}: A (us) " + ", ".join(f"{k} {a1[k][0]:.2f}" for k in a1 if a1[k][0]))
    for i, st in enumerate(s for s in sets if s):
        try:
            xa, xb = iqm(f"{R}/{shape}-X{i+1}a.json"), iqm(f"{R}/{shape}-X{i+1}b.json")
        except Exception as e:
            print(f"X{i+1} missing ({e})"); continue
        rat = []
        for k in a1:
            try: rat.append(f"{(xa[k][0]+xb[k][0])/(a1[k][0]+a2[k][0]):.3f}")
            except Exception: rat.append(f"n/a({xa.get(k, (0, 'missing'))[1]})")
        print(f"X{i+1} [{st}]: " + " ".join(rat))
PY
tar cJf $OUT/rl.tar.xz -C $OUT rl && rm -rf $R
cat $S
