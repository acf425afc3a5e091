#pragma once
// Baseline "flashinfer" of the rmsnorm task: FlashInfer's RMSNorm kernel,
// flashinfer::norm::RMSNormKernel<VEC_SIZE, T> (the one sgl-kernel's rmsnorm launches), from the
// headers of the flashinfer-python wheel as it ships them; scripts/fetch-peers.sh puts them in
// peers/flashinfer-python-<VER>/include. Nothing of FlashInfer is copied here. Compile with
// -default-device and the include dirs engines/flashinfer_nvrtc, engines/nvrtc_std and that
// folder; context/flashinfer_rmsnorm.md gives the launch FlashInfer's own host code makes.
// Quoted includes: ako's JIT cache key follows quoted includes only, so this way it covers
// FlashInfer's headers (theirs are quoted too).
#include "ako_flashinfer_nvrtc.h"

#include "flashinfer/norm.cuh"
