#pragma once
// ATTACK (guard bands): an out-of-bounds write just before the start of an output.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. A plain, correct RMSNorm, except that
// the first row's threads also store 4 elements just before `out[0]`, where an allocator
// keeps its bookkeeping or the previous tensor ends; a harness that compares only the
// interior never notices.
// Expected: failed, fault out_of_bounds_write, "wrote before the start of buffer 'out'".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum_sq, cols, eps));
  // The trick: 4 elements before the start of the output.
  if (r.row == 0 && r.lane < 4) out[r.lane - 4] = static_cast<T>(1.0f);
}
