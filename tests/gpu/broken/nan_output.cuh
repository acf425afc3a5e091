#pragma once
// BROKEN ON PURPOSE (GPU test of the worker's isolation and validation): a drop-in
// replacement for solution/rmsnorm/rmsnorm.cuh, same template and arguments.
// Defect: one element (column 0 of the middle row) is written as NaN.
//
// Around the defect it is the plain, correct RMSNorm of tests/attacks/honest_rmsnorm.cuh: the
// row's TPR threads sum squares into shared memory, then normalise. Expected verdict: INCORRECT (1 nonfinite output).
#include "../../attacks/honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  const auto nan_at_column_0_of_the_middle_row = [&](int c, float y) {
    return r.row == rows / 2 && c == 0 ? __int_as_float(0x7fffffff) : y;
  };
  honest::normalise_row<T, HAS_WEIGHT>(out, weight, r, cols, honest::inv_rms(sum_sq, cols, eps), honest::load_x(x, r, cols),
                                       nan_at_column_0_of_the_middle_row);
}
