#pragma once
// HONEST CONTROL for the precision check (not an attack): the sum of squares in fp32 like the
// reference, only in another order: each thread takes a contiguous run of its row (the
// reference strides by 256), and the row's total adds the threads' shares from the last lane to
// the first (the reference halves a shared-memory tree). Its output differs from the
// reference's by at most an ulp here and there; its error against the fp64 oracle is the
// reference's to within a percent, so it must be `correct` on every seed.
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const auto load = honest::load_x(x, r, cols);
  const int run = (cols + r.TPR - 1) / r.TPR;   // this thread's columns: [lane * run, lane * run + run)
  float share = 0.f;
  for (int c = r.lane * run; r.row < rows && c < cols && c < (r.lane + 1) * run; ++c) {
    const float v = load(c);
    share += v * v;
  }
  const float* partial = honest::shared_shares<BLOCK>(share);
  __shared__ float sums[ROWS_PER_BLOCK];
  if (r.lane == 0) {
    float total = 0.f;
    for (int i = r.TPR - 1; i >= 0; --i) total += partial[r.slot * r.TPR + i];
    sums[r.slot] = total;
  }
  __syncthreads();
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sums[r.slot], cols, eps));
}
