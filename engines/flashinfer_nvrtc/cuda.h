#pragma once
// <cuda.h> (the driver API) for NVRTC, which cannot parse the real one (it needs the host C
// library). FlashInfer's headers only read CUDA_VERSION from it (vec_dtypes.cuh: the FP4 types).
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
