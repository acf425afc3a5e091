#!/usr/bin/env bash
# Session 36, call 7 (nvidia-h200; carry bundle-x, peers). Issue 15's other three families counted again on this tree
# (kernels unchanged since session 29), and the floor under their smallest cases: rope's d256 and qknorm_rope's
# neox-r32 / partial-r64 (a few hundred KB, ~2 us), where 1.1x over the engine is asked and ako already beats a memcpy
# of its bytes. latency_floor.py times kernels with the solutions' grid and only the dependences a rotation cannot
# avoid (the token's position, then the cos/sin row it names, before the store), beside rope's own d256 kernel.
# Prediction (before the run): floor_chain within 0.1 us of rope's kernel on d256 (~2.1 us), i.e. at or above the
# 2.02-2.13 us that 1.1x over FlashInfer would need; floor_empty ~1.3-1.6 us.
# Back: summary.txt (printed last), floor.txt, runs.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
D=bench/results/2026-12-01-h200-session36
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> $S
timeout 240 python3 $D/latency_floor.py $D/latency_floor.cubin --samples 200 --rounds 3 > $OUT/floor.txt 2>&1
echo "latency_floor rc=$?" >> $S
grep -v -i warn $OUT/floor.txt | grep -v "^  _warn" >> $S
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
T=$OUT/runs; mkdir -p $T
for task in rope qknorm_rope gated_act; do
  t1=$(date +%s)
  timeout 200 bundle/bin/ako run task $task --size-copy --no-progress --json $T/$task.json > $T/$task.txt 2>&1
  echo "ako run $task rc=$? ($(( $(date +%s) - t1 )) s): $(grep -E '^CORRECT|^SPEEDUP|^RUNTIME|^BASELINE|^SIZE' $T/$task.txt | tr '\n' ' ')" >> $S
  python3 scripts/engine_table.py $T/$task.json > $T/$task-engine-table.txt 2>&1
  python3 scripts/engine_table.py --markdown --by-shape $T/$task.json > $T/$task-by-shape.md 2>&1
  grep -E '^[a-z_]+: NVIDIA|^ako vs|^slower|^under' $T/$task-engine-table.txt | cut -c1-2500 >> $S
done
grep -E "^(d256|neox-r32|partial-r64) " $T/rope.txt $T/qknorm_rope.txt | cut -c1-260 >> $S
tar cJf $OUT/runs.tar.xz -C $OUT runs && rm -rf $T
echo "wall $(( $(date +%s) - T0 )) s" >> $S
cat $S
