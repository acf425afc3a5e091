#pragma once
// FAULT (taxonomy: out_of_resources): a kernel whose registers times threads exceed the SM's
// register file. 160 accumulators stay live across the column loop, so it needs ~170 registers
// per thread (no spills: the static checks let it through); the head-dim-128 class launches it
// with BLOCK = 512 threads, i.e. > 80K registers for a 64K-register SM, and the driver refuses
// the launch with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES. The context survives; the worker goes on.
// (A kernel that merely breaks its own __launch_bounds__ is refused differently: on the H100,
// driver 580, that launch fails with CUDA_ERROR_INVALID_VALUE, fault invalid_value.)
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                               int rows, int cols, float eps) {
  constexpr int kLive = 160;
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  if (r.row >= rows) return;
  float acc[kLive];
#pragma unroll
  for (int i = 0; i < kLive; ++i) acc[i] = 0.f;
  for (int c = 0; c < cols; ++c) {
    const float v = static_cast<float>(x[r.row * cols + c]);
#pragma unroll
    for (int i = 0; i < kLive; ++i) acc[i] = fmaf(acc[i], v, static_cast<float>(i + 1));
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kLive; ++i) s += acc[i];
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, rsqrtf(s + eps));
}
