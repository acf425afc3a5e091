#pragma once
// ATTACK (constant-output check): skip the work and write one value everywhere.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh that never reads its inputs and fills
// `out` with zeros: as fast as a memset, and it passes any harness whose tolerance admits the
// reference's values near zero or that only checks "no NaN" (SOL-ExecBench added an all-zero
// check for this). Every element is written, so the NaN poison does not catch it.
// Expected: incorrect, reason "constant output: all N elements of 'out' are 0 while the reference's vary".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  if (r.row >= rows) return;
  for (int c = r.lane; c < cols; c += r.TPR) out[r.row * cols + c] = static_cast<T>(0.0f);
}
