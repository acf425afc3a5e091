#!/usr/bin/env bash
# Session 12, call 5 (carry bundle, peers, .sgl-proof): first the ported kernels of both norm
# fusions with iteration 8's configs through SGLang's JIT and tvm-ffi on the GPU
# (scripts/sglang-gpu-check.sh; .sgl-proof prepared from scripts/sglang-port-check.sh's tree).
# Then the residual fusion's model shapes, where it trails SGLang's CuTe DSL kernel
# by 1-5% (call 3c), in CuTe's launch shape: one token a block of C / 8 threads, one 16-byte
# chunk each, every register it needs (MIN_BLOCKS 1), the modulation loaded after (c0) or before
# (c1) the reductions, against the committed configs (base); per shape ABCCBA, both dtypes.
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-11-26-h200-session12
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
task=residual_gate_norm_scale_shift
start=$(date +%s); k=0
OUT=$OUT/port timeout 240 scripts/sglang-gpu-check.sh --task norm_scale_shift --task residual_gate_norm_scale_shift > $L/port.txt 2>&1
echo "port proof rc=$? $(( $(date +%s) - start ))s: $(grep -E 'SGLANG-GPU-CHECK' $L/port.txt | tail -1)" >> $S
[ -d $OUT/port ] && mv $OUT/port $L/
for sc in flux1-single:3072 qwen-image:3072 zimage:3840 ltx-video:2048 flux2-single:6144 wan14b-480p:5120 hunyuan-720p:3072 wan13b-480p:1536; do
  shape=${sc%%:*}; C=${sc##*:}
  W="--param BLOCK=$((C / 8)) --param VEC=8 --param ROWS_PER_BLOCK=1 --param CHUNKS=1 --param MIN_BLOCKS=1 --param TOKENS=1"
  i=0
  for v in base c0 c1 c1 c0 base; do
    i=$((i+1)); k=$((k+1))
    [ $(( $(date +%s) - start )) -gt 500 ] && { echo "$shape $v $i: skipped (the call's time)" >> $S; continue; }
    p=""; [ $v = c0 ] && p="$W --param EARLY_MOD=0"; [ $v = c1 ] && p="$W --param EARLY_MOD=1"
    timeout 90 bundle/bin/ako run task $task --shapes $shape $p --no-progress \
      --json $OUT/ab/$task-$v-$k.json > $L/$shape-$v-$i.txt 2>&1
    echo "$shape $v $i rc=$? $(( $(date +%s) - start ))s: $(grep -E '^CORRECT|^RUNTIME|REFUSED' $L/$shape-$v-$i.txt | cut -c1-200 | tr '\n' ' ')" >> $S
  done
done
python3 $D/../2026-11-25-h200-session9/ab_summary.py $OUT/ab base >> $S 2>&1
python3 $D/variant_table.py $OUT/ab base $D/call3c/peers-residual_gate_norm_scale_shift.json.xz > $OUT/variant-table.txt 2>&1
grep -E "^best" $OUT/variant-table.txt >> $S
cat $S
tar cJf $OUT/call5.tar.xz -C $OUT ab logs variant-table.txt && rm -rf $L $OUT/ab
