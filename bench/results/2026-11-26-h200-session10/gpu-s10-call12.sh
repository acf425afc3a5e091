#!/usr/bin/env bash
# Session 10, call 12: qknorm_rope's q / k accesses with cache hints, A/B against the committed
# kernel (its tuned config for all): x loaded through the read-only path (__ldg; each element is
# read once, before its own thread writes it), loaded evict-first (__ldcs), stored evict-first
# (__stcs); ABCDDCBA, bf16 and fp16 on the five model shapes; summary by ab_summary.py.
# The variants ran as full copies, variants/qr-<v>.cuh; kept here as variants/qr-<v>.patch against
# solution/qknorm_rope/qknorm_rope.cuh of commit 6e2ce48 (patch -p1 -o variants/qr-<v>.cuh to rerun).
set -uo pipefail
export AKO_CACHE_DIR=/tmp/ako-cache
V=bench/results/2026-11-26-h200-session10/variants
L=$OUT/logs; mkdir -p $L $OUT/ab; S=$OUT/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L/smi.txt
sol() { case $1 in base) echo "";; *) echo "--solution $V/qr-$1.cuh";; esac; }
i=0
for v in base ldg ldcs stcs stcs ldcs ldg base; do
  i=$((i+1))
  timeout 120 bundle/bin/ako run task qknorm_rope --shapes flux1,flux2,zimage,qwen-image,hunyuan-720p --dtypes bf16,fp16 \
    --no-progress $(sol $v) --json $OUT/ab/qknorm_rope-$v-$i.json > $L/qknorm_rope-$v-$i.txt 2>&1
  echo "$v run $i rc=$?: $(grep -E '^CORRECT|^BASELINE' $L/qknorm_rope-$v-$i.txt | tr '\n' ' ')" >> $S
done
python3 bench/results/2026-11-25-h200-session9/ab_summary.py $OUT/ab base > $OUT/ab-summary.txt 2>&1
cat $S $OUT/ab-summary.txt
tar czf $OUT/logs.tgz -C $OUT logs ab && rm -rf $L $OUT/ab
