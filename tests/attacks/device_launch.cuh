#pragma once
// ATTACK (static check device_launch): work launched from the device.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Thread 0 of block 0 launches a helper
// kernel through the device runtime's own entry points (declared by hand, since CUDA's
// `<<<>>>` in device code needs the runtime headers NVRTC does not have): the helper would do
// the real work outside the launch ako declares and checks. `kernel<<<...>>>` in device code
// does not compile under NVRTC at all ("the required runtime APIs are not declared").
// Expected: it does NOT build: ako compiles without -rdc, so ptxas rejects the program with
// "Unresolved extern function 'cudaGetParameterBufferV2'" (ako compile exits 2). Should a future
// option enable -rdc, the device_launch static check flags the calls in its PTX (unit-tested).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __device__ void* cudaGetParameterBufferV2(void* func, dim3 grid, dim3 block, unsigned int smem);
extern "C" __device__ int cudaLaunchDeviceV2(void* buffer, void* stream);

template <typename T>
__global__ void ako_attack_helper(T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<T>(0.f);
}

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    void* params = cudaGetParameterBufferV2(reinterpret_cast<void*>(ako_attack_helper<T>), dim3(1), dim3(32), 0);
    *static_cast<T**>(params) = out;
    *reinterpret_cast<int*>(static_cast<char*>(params) + 8) = 0;
    cudaLaunchDeviceV2(params, nullptr);
  }
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  const int lane = threadIdx.x % TPR, slot = threadIdx.x / TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + slot;
  __shared__ float sums[ROWS_PER_BLOCK];
  if (threadIdx.x < ROWS_PER_BLOCK) sums[threadIdx.x] = 0.f;
  __syncthreads();
  float s = 0.f;
  for (int c = lane; row < rows && c < cols; c += TPR) {
    const float v = static_cast<float>(x[row * cols + c]);
    s += v * v;
  }
  atomicAdd(&sums[slot], s);
  __syncthreads();
  if (row >= rows) return;
  const float inv_rms = rsqrtf(sums[slot] / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = static_cast<float>(x[row * cols + c]) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
