#pragma once
// <cuda.h> (the driver API) for NVRTC, which cannot parse the real one (it needs the host C
// library). Only what the host helpers of sgl_kernel/utils.cuh name: NVRTC must parse them,
// because they share the header with the device helpers, but never emits or calls them.
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)

enum CUresult { CUDA_SUCCESS = 0 };
CUresult cuGetErrorString(CUresult error, const char** text);
