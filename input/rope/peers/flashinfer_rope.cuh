#pragma once
// Baselines "flashinfer" and "flashinfer_heads" of the rope task: FlashInfer's kernels behind
// apply_rope_with_cos_sin_cache_inplace, flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel
// (a block row of tokens, every head in a loop) and
// BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel (grid.y over the q and k heads),
// from the headers of the flashinfer-python wheel as it ships them; scripts/fetch-peers.sh
// puts them in peers/flashinfer-python-<VER>/include. Nothing of FlashInfer is copied here.
// Compile with -default-device and the include dirs engines/flashinfer_nvrtc, engines/nvrtc_std
// and that folder; context/rope.md gives the launch FlashInfer's own host code makes.
// ako_flashinfer_pos_enc_nvrtc.h says what pos_enc.cuh's include closure needs beyond the norm
// kernels' (host-only helpers of the paged-KV code beside it).
// Quoted includes: ako's JIT cache key follows quoted includes only.
#include "ako_flashinfer_nvrtc.h"
#include "ako_flashinfer_pos_enc_nvrtc.h"

#include "flashinfer/pos_enc.cuh"
