#!/usr/bin/env bash
# Session 28, call 2 (nvidia-h200, or -x2 for the mirror on a second GPU; carry bundle-x): the residual fusion's config with call 1's six sweep classes (commit e8c4eb3) against the one before
# (residual-h200-config-before.json, run as device BEFORE), `ako run task residual_gate_norm_scale_shift
# --shapes text-512,text-512-cfg`, A B B A on GPU 0 and B A A B on GPU 1 (ITERATIONS.md norm_scale_shift
# iteration 32). Back: summary.txt, g0.tar.xz, g1.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
scripts/gpu-unpack-bundle.sh > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
C=solution/residual_gate_norm_scale_shift/configs
cp bench/results/2026-12-01-h200-session28/residual-h200-config-before.json $C/device_name=BEFORE.json
one() {  # gpu tag device
  CUDA_VISIBLE_DEVICES=$1 AKO_CACHE_DIR=/tmp/ako-cache$1 timeout 120 bundle/bin/ako run task residual_gate_norm_scale_shift \
    --shapes text-512,text-512-cfg --no-progress --device "$3" --json $OUT/g$1/$2.json > $OUT/g$1/$2.txt 2>&1
  echo "gpu$1 $2 ($3) rc=$?: $(grep -E '^CORRECT|^RUNTIME' $OUT/g$1/$2.txt | tr '\n' ' ')" >> $OUT/g$1/rcs.txt
}
gpu() { local g=$1; shift; mkdir -p $OUT/g$g; for x in "$@"; do one $g "${x%%:*}" "${x#*:}"; done; }
NG=$(nvidia-smi -L | wc -l)
gpu 0 A1:BEFORE B1:"NVIDIA H200" B2:"NVIDIA H200" A2:BEFORE &
[ $NG -ge 2 ] && gpu 1 B1:"NVIDIA H200" A1:BEFORE A2:BEFORE B2:"NVIDIA H200" &
wait
rm -f $C/device_name=BEFORE.json
{
  for g in 0 1; do
    [ -d $OUT/g$g ] || continue
    echo "== GPU $g"; cat $OUT/g$g/rcs.txt
    python3 scripts/abba_cases.py $OUT/g$g/A1.json $OUT/g$g/B1.json $OUT/g$g/B2.json $OUT/g$g/A2.json --label "sweep classes / before" > $OUT/g$g/abba.txt 2>&1
    grep -E "^sweep|^noise" $OUT/g$g/abba.txt
  done
} >> $S 2>&1
for g in 0 1; do [ -d $OUT/g$g ] && tar cJf $OUT/g$g.tar.xz -C $OUT g$g && rm -rf $OUT/g$g; done
cat $S
