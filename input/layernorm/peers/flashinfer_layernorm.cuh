#pragma once
// Baseline "flashinfer" of the layernorm task: FlashInfer's LayerNorm kernel,
// flashinfer::norm::generalLayerNorm<T, Tw, QuantT, USE_SHMEM, USE_DIFF_OF_SQUARES>, from the
// headers of the flashinfer-python wheel as it ships them; scripts/fetch-peers.sh puts them in
// peers/flashinfer-python-<VER>/include. Nothing of FlashInfer is copied here. Compile with
// -default-device, -DENABLE_BF16 (FlashInfer's own build flag: without it the bf16 packed types
// its launcher picks are not declared) and the include dirs engines/flashinfer_nvrtc,
// engines/nvrtc_std and that folder; context/flashinfer_layernorm.md gives the launch
// FlashInfer's own host code makes.
// Quoted includes: ako's JIT cache key follows quoted includes only, so this way it covers
// FlashInfer's headers (theirs are quoted too).
#include "ako_flashinfer_nvrtc.h"

#include "flashinfer/norm.cuh"
