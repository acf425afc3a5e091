#pragma once
// BROKEN ON PURPOSE (GPU test of the worker's isolation and validation): a drop-in
// replacement for solution/rmsnorm/rmsnorm.cuh, same template and arguments.
// Defect: the first thread of block 0 sleeps in a loop that never ends; the volatile asm is
// a side effect, so the compiler may not delete the loop. Only the watchdog ends it.
//
// Around the defect it is a plain, correct RMSNorm: the row's TPR threads sum squares into
// shared memory, then normalise. Expected verdict: FAILED (timeout), reported by the watchdog.
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
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (;;) asm volatile("nanosleep.u32 1000;");
  }
  const float inv_rms = rsqrtf(sums[slot] / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = static_cast<float>(x[row * cols + c]) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
