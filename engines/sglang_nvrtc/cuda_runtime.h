#pragma once
// <cuda_runtime.h> for NVRTC: NVRTC predefines the runtime's types (cudaError_t, cudaStream_t,
// dim3) but not the host API. Declared here: what the host helpers of sgl_kernel/utils.cuh
// name (launching, error strings). NVRTC parses them and never emits or calls them.
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError();
