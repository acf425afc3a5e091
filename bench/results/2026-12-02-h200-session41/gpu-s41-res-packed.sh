#!/usr/bin/env bash
# Session 41, call 5 (carry bundle-x, bundle-abba41): the residual fusion with residual_out = residual + gate * x in
# packed 16-bit arithmetic (variants/res-packed-gate.cuh: one fma.rn.{f16,bf16}x2 per pair where x, residual and the
# gate share the 16-bit type, an add where there is no gate; fp32 gates keep the fp32 path) against the task's
# solution, A B B A (scripts/gpu-abba.sh), on every case the change touches (mod_dtype same or no gate): first the
# model shapes (38 cases), then text-512-cfg (56). bundle-abba41/cache.tar.xz holds both sides' kernels, compiled on
# the build machine at this cache path by `ako run` against the stand-in H200 with the same arguments.
# Back: summary.txt (printed last), abba-models.tar.xz and abba-text.tar.xz (each set's four runs' JSON and text,
# cases.txt, its log).
set -uo pipefail
mkdir -p "$OUT"; OUT=$(realpath "$OUT")
R=bench/results/2026-12-02-h200-session41
S=$OUT/summary.txt; : > "$S"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader >> "$S"
scripts/gpu-unpack-bundle.sh --if-needed >&2
export AKO_CACHE_DIR=/tmp/ako-abba-cache
mkdir -p "$OUT/abba" "$AKO_CACHE_DIR" && tar xJf bundle-abba41/cache.tar.xz -C "$AKO_CACHE_DIR"
n0=$(find "$AKO_CACHE_DIR" -name '*.cubin' | wc -l)
W="mod_dtype == 'same' || gate == 'none'"
# A deadline for the whole script (the call's limit less the tarring): the second set runs only in what is left.
T_END=$(( $(date +%s) + ${BUDGET_S:-480} ))
for set in models text; do
  if [ $set = models ]; then shapes=flux1-single,flux2-single,zimage,hunyuan-720p,ltx-video,qwen-image,text-512,wan13b-480p,wan14b-480p
  else shapes=text-512-cfg; fi
  left=$(( T_END - $(date +%s) )); [ $set = text ] || left=$(( left < 300 ? left : 300 ))
  [ $left -gt 60 ] || { echo "== $set not run: $left s left" >> "$S"; continue; }
  t0=$(date +%s)
  OUT=$OUT/abba/$set B_SOLUTION=$R/variants/res-packed-gate.cuh LABEL="packed / fp32" RUN_TIMEOUT=$(( left / 4 )) \
    timeout $left scripts/gpu-abba.sh residual_gate_norm_scale_shift --shapes $shapes --where "$W" --size-copy \
    > "$OUT/abba/$set.log" 2>&1 || true
  mkdir -p "$OUT/abba/$set"; mv "$OUT/abba/$set.log" "$OUT/abba/$set/" 2>/dev/null
  echo "== $set ($(( $(date +%s) - t0 )) s)" >> "$S"; cat "$OUT/abba/$set/summary.txt" >> "$S" 2>/dev/null
  tar cJf "$OUT/abba-$set.tar.xz" -C "$OUT/abba" "$set" && rm -rf "$OUT/abba/$set"
done
echo "cubins: $n0 carried, $(find "$AKO_CACHE_DIR" -name '*.cubin' | wc -l) after the runs" >> "$S"
cat "$S"
