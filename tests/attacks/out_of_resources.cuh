#pragma once
// FAULT (taxonomy: out_of_resources): a kernel compiled for fewer threads than it is launched with.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh whose __launch_bounds__ promises at most
// 32 threads per block while the task launches BLOCK (256 for text-512) threads: the driver refuses
// the launch ("too many resources requested for launch"). The kernel itself is a plain RMSNorm.
// Expected: failed, fault out_of_resources; the context survives, so the worker goes on.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(32)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  const int lane = threadIdx.x % TPR, slot = threadIdx.x / TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + slot;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) {
    const float v = static_cast<float>(x[row * cols + c]);
    s += v * v;
  }
  const float inv_rms = rsqrtf(s / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = static_cast<float>(x[row * cols + c]) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
