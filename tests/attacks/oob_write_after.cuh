#pragma once
// ATTACK (guard bands): an out-of-bounds write hidden in the allocation's padding.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. A plain, correct RMSNorm, except that
// the last row's threads also store 8 elements just past the end of `out`: with a 256-byte
// aligned allocator those bytes are padding nobody checks, so a harness that compares only the
// interior never notices (and a real model would have its neighbouring tensor corrupted).
// Expected: failed, fault out_of_bounds_write, "wrote past the end of buffer 'out'".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum_sq, cols, eps));
  // The trick: 8 elements past the end of the output.
  if (r.row == rows - 1 && r.lane < 8) out[static_cast<long long>(rows) * cols + r.lane] = static_cast<T>(1.0f);
}
