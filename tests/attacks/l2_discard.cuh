#pragma once
// ATTACK (static check l2_discard): never pay for the output's write-back.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. After a block writes its rows it
// issues discard.global.L2 over the 128-byte lines it wrote, so the dirty lines are dropped
// instead of written back to DRAM: the kernel looks faster, and whether `out` holds the answer
// afterwards depends on timing (the data is undefined by the PTX spec). Otherwise a plain RMSNorm.
// Expected: ako refuses it: l2_discard, "executes discard.global.L2".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
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
  __syncthreads();
  // One discard per 128-byte line of this row (out is 128-byte aligned by ako's allocator).
  const long long bytes = static_cast<long long>(cols) * sizeof(T);
  for (long long off = static_cast<long long>(lane) * 128; off + 128 <= bytes; off += 128LL * TPR) {
    const char* line = reinterpret_cast<const char*>(out + row * cols) + off;
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(line) : "memory");
  }
}
