#!/usr/bin/env bash
# Session 33 calls 2-3: session 32's prepared-sure-sweep.sh split by task (TASK=norm_scale_shift or
# residual_gate_norm_scale_shift), with a guard that starts no sweep after 480 s and names the shapes it left.
# Both norm fusions with SURE 1 (no bounds test on the chunks k < CHUNKS - 1 the task's constraint keeps in the
# row) on every shape, A S1 S1 A, A being the same variant at SURE 0 (the committed machine code, NVRTC .text
# compared in session 32). WHERE leaves out the pinned-occupancy classes that spill under SURE 1.
# Carry bundle-x. Back: summary.txt (printed last), sweeps.tar.xz.
set -uo pipefail
OUT=$(realpath "$OUT")
S=$OUT/summary.txt; : > $S
T0=$(date +%s)
scripts/gpu-unpack-bundle.sh --if-needed > $OUT/unpack.txt 2>&1 || { cat $OUT/unpack.txt; exit 1; }
export AKO_CACHE_DIR=/tmp/ako-cache
D=bench/results/2026-12-01-h200-session32
W=$OUT/sweeps; mkdir -p $W
case $TASK in
  norm_scale_shift) SPEC=nss-task-sure.json
    W13="!(layout == 'bf1c' && mod_dtype == 'same' && !affine && norm == 'rms')";;
  residual_gate_norm_scale_shift) SPEC=residual-task-sure.json
    W13="!(layout == 'bf1c' && gate == 'bc' && mod_dtype == 'fp32' && affine)";;
  *) echo "TASK?"; exit 2;;
esac
for s in ${SHAPES:-wan13b-480p text-512-cfg flux1-single flux2-single qwen-image zimage ltx-video wan14b-480p hunyuan-720p text-512}; do
  if [ $(( $(date +%s) - T0 )) -gt 480 ]; then echo "not started (time): $s" >> $S; continue; fi
  w=""; [ $s = wan13b-480p ] && w=$W13
  OUT=$W/$s SPEC=$D/variants/$SPEC WHERE="$w" RUN_TIMEOUT=120 scripts/gpu-sweep-sets.sh $TASK $s $D/sure-sets.txt > /dev/null 2>&1
  echo "== $TASK $s ($(( $(date +%s) - T0 )) s)" >> $S; grep -v '^run ' $W/$s/summary.txt | cut -c1-1500 >> $S
  grep '^run ' $W/$s/summary.txt | grep -vc 'rc=0.*CORRECT: yes' | sed 's/^/runs not rc=0 and correct: /' >> $S
done
echo "wall $(( $(date +%s) - T0 )) s" >> $S
tar cJf $OUT/sweeps.tar.xz -C $OUT sweeps && rm -rf $W
cat $S
