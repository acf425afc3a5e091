#pragma once
// ATTACK (static check device_globals): a result cache across calls.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. It keeps a fingerprint of the last
// inputs it normalised (x's address, the shape and the first element) in a mutable __device__
// global. When a call sees the same fingerprint it returns at once and leaves `out` as it is,
// betting that the buffer still holds the previous answer (the trick that fooled FlashInfer-Bench,
// starter-kit issue #21). The work is otherwise a plain RMSNorm.
// Expected: ako refuses it before any GPU work: device_globals, "mutable __device__ global".
#include "honest_rmsnorm.cuh"

__device__ unsigned long long ako_attack_last_fingerprint;  // survives across launches

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const unsigned long long fp = reinterpret_cast<unsigned long long>(x) ^
                                (static_cast<unsigned long long>(rows) << 32) ^ static_cast<unsigned>(cols) ^
                                __float_as_uint(static_cast<float>(x[0]));
  if (ako_attack_last_fingerprint == fp) return;  // "same inputs": skip everything
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum_sq, cols, eps));
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) ako_attack_last_fingerprint = fp;
}
