#pragma once
// ATTACK (static check clock): phase detection through %globaltimer.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. It reads the global nanosecond timer
// (inline PTX, so no source-level grep for clock64() would see it) and, in alternate ~1 ms
// windows, skips the weight multiply: a harness that validates in one window and times in
// another sees a correct kernel and a fast one, never the same launch. The rest is a plain RMSNorm.
// Expected: ako refuses it: clock, "reads %globaltimer".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  const bool cheap = (now >> 20) & 1;  // every other 2^20 ns window
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
    if (HAS_WEIGHT && !cheap) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
