#!/usr/bin/env bash
# Session 32, call 3 (nvidia-h200; carry bundle-x): what a frame costs. wan13b's bf16 affine LayerNorm with fp32
# per-frame modulation at F = 1, 3, 7, 21, 105, 1365 frames (the task read from variants/nss-task-frames.json: the
# same shape with other F), and its [B, C] case, under two fixed kernels: O, the one-token point of C-1536 (64
# threads x 3 chunks, the [B, C] case's class) with STATS 1; K, the walk class (64 x 3, WALK 8, DEPTH 4). Each
# shape's runs O K K O. If a frame boundary costs each SM a stall (every SM fetching the new frame's rows at once),
# O's time grows with F and K's less.
# Back: summary.txt (printed last), runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
SPEC=$D/variants/nss-task-frames.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >> $S
R=$OUT/runs; mkdir -p $R
O="BLOCK=64 CHUNKS=3 ROWS_PER_BLOCK=1 EARLY_MOD=0 MIN_BLOCKS=0 ROW_CACHE=1 VEC=8 TOKENS=1 STATS=1 STORE_CS=0 WALK=1 DEPTH=1"
K="BLOCK=64 CHUNKS=3 ROWS_PER_BLOCK=1 EARLY_MOD=0 MIN_BLOCKS=1 ROW_CACHE=0 VEC=8 TOKENS=1 STATS=1 STORE_CS=0 WALK=8 DEPTH=4"
run() {  # tag shape where params
  local p=(); for x in $4; do p+=(--param $x); done
  timeout 100 bundle/bin/ako run task $SPEC --shapes $2 --where "$3" --no-progress "${p[@]}" --json $R/$1.json > $R/$1.txt 2>&1
  echo "$1 rc=$? $(grep -E '^CORRECT' $R/$1.txt | tr '\n' ' ')" >> $R/rc.txt
}
W="affine && mod_dtype == 'fp32' && norm == 'layer' && dtype == 'bf16'"
for sh in wan13b-f1 wan13b-f3 wan13b-f7 wan13b-480p wan13b-f105 wan13b-f1365; do
  for t in O1 K1 K2 O2; do run $sh-$t $sh "$W && layout == 'bf1c'" "$([ ${t:0:1} = O ] && echo "$O" || echo "$K")"; done
done
for t in O1 K1 K2 O2; do run bc-$t wan13b-480p "$W && layout == 'bc'" "$([ ${t:0:1} = O ] && echo "$O" || echo "$K")"; done
python3 - "$R" >> $S <<'PY'
import json, sys, glob, os
R = sys.argv[1]
sys.path.insert(0, "scripts")
from abba_cases import iqms
def us(f):
    return list(iqms(f).values())
print("shape                 O1 us    K1 us    K2 us    O2 us   K/O")
for sh in ["wan13b-f1", "wan13b-f3", "wan13b-f7", "wan13b-480p", "wan13b-f105", "wan13b-f1365", "bc"]:
    try:
        v = [us(f"{R}/{sh}-{t}.json")[0] for t in ("O1", "K1", "K2", "O2")]
        print(f"{sh:18} {v[0]:8.2f} {v[1]:8.2f} {v[2]:8.2f} {v[3]:8.2f}  {(v[1]+v[2])/(v[0]+v[3]):.3f}")
    except Exception as e:
        print(f"{sh:18} ({type(e).__name__}: {e})")
PY
cat $R/rc.txt >> $S
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $R
cat $S
