#pragma once
// ATTACK (static check device_globals): a result cache across calls.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. It keeps a fingerprint of the last
// inputs it normalised (x's address, the shape and the first element) in a mutable __device__
// global. When a call sees the same fingerprint it returns at once and leaves `out` as it is,
// betting that the buffer still holds the previous answer (the trick that fooled FlashInfer-Bench,
// starter-kit issue #21). The work is otherwise a plain RMSNorm.
// Expected: ako refuses it before any GPU work: device_globals, "mutable __device__ global".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ unsigned long long ako_attack_last_fingerprint;  // survives across launches

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const unsigned long long fp = reinterpret_cast<unsigned long long>(x) ^
                                (static_cast<unsigned long long>(rows) << 32) ^ static_cast<unsigned>(cols) ^
                                __float_as_uint(static_cast<float>(x[0]));
  if (ako_attack_last_fingerprint == fp) return;  // "same inputs": skip everything
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
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) ako_attack_last_fingerprint = fp;
}
