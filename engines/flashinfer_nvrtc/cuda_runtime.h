#pragma once
// <cuda_runtime.h> for NVRTC: NVRTC predefines the runtime's types (cudaError_t, cudaStream_t,
// cudaDeviceProp, cudaLaunchConfig_t, dim3, ...) but not the host API. Declared here: what the
// non-template host helpers in FlashInfer's headers call (utils.cuh, trtllm/common/cudaUtils.h);
// NVRTC parses them as device functions (-default-device) and never emits or calls them.
// Template launchers (RMSNorm<T>, ...) name more of the API, but only at instantiation, which
// never happens here.

// The real header includes <functional> and <utility>, which bring <type_traits>;
// trtllm/common/cudaFp8Utils.h relies on that for std::alignment_of_v (with -DENABLE_FP8).
#include <type_traits>
#include <utility>

const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* cluster_size, const void* func,
                                                 const cudaLaunchConfig_t* config);

// The real header reaches glibc's <sys/types.h>, which declares ushort; math.cuh uses it.
typedef unsigned short ushort;
