#pragma once
// <cuda_runtime.h> for NVRTC: NVRTC predefines the runtime's types (cudaError_t, cudaStream_t,
// dim3) but not the host API. Declared here: what the host helpers of sgl_kernel/utils.cuh
// name (launching, error strings) and the device queries of sgl_kernel/runtime.cuh (occupancy,
// SM count, versions). NVRTC parses them and never emits or calls them.
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaRuntimeGetVersion(int* version);
template <typename T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, T func, int block_size, size_t dynamic_smem);
