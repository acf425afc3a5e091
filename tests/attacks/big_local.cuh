#pragma once
// ATTACK (static check local_memory): a big per-thread local array.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Each thread stages its share of the
// row in a 1024-float array indexed at run time, which ptxas must place in local memory: a 4 KiB
// stack frame per thread whose DRAM/L1 traffic the task's bytes-moved model does not count (and
// which hides reads from any bandwidth accounting). The values are a plain, correct RMSNorm for
// rows up to 1024 * TPR columns.
// Expected: ako refuses it: local_memory, "uses a 4096 byte stack frame".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  float stage[1024];
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
    stage[(c / TPR) & 1023] = v;
  }
  atomicAdd(&sums[slot], s);
  __syncthreads();
  if (row >= rows) return;
  const float inv_rms = rsqrtf(sums[slot] / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = stage[(c / TPR) & 1023] * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
