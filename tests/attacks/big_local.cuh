#pragma once
// ATTACK (static check local_memory): a big per-thread local array.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Each thread stages its share of the
// row in a 1024-float array indexed at run time, which ptxas must place in local memory: a 4 KiB
// stack frame per thread whose DRAM/L1 traffic the task's bytes-moved model does not count (and
// which hides reads from any bandwidth accounting). The values are a plain, correct RMSNorm for
// rows up to 1024 * TPR columns.
// Expected: ako refuses it: local_memory, "uses a 4096 byte stack frame".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  float stage[1024];
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  // Each element is staged on the way in and read back from the stage on the way out.
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(r, rows, cols, [&](int c) {
    const float v = static_cast<float>(x[r.row * cols + c]);
    stage[(c / r.TPR) & 1023] = v;
    return v;
  });
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, weight, r, cols, honest::inv_rms(sum_sq, cols, eps),
                                       [&](int c) { return stage[(c / r.TPR) & 1023]; }, honest::AsIs{});
}
