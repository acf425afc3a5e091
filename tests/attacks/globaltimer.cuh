#pragma once
// ATTACK (static check clock): phase detection through %globaltimer.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. It reads the global nanosecond timer
// (inline PTX, so no source-level grep for clock64() would see it) and, in alternate ~1 ms
// windows, skips the weight multiply: a harness that validates in one window and times in
// another sees a correct kernel and a fast one, never the same launch. The rest is a plain RMSNorm.
// Expected: ako refuses it: clock, "reads %globaltimer".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  const bool cheap = (now >> 20) & 1;  // every other 2^20 ns window
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  // The trick: the weight only outside the cheap windows.
  const auto weight_unless_cheap = [&](int c, float y) {
    return HAS_WEIGHT && !cheap ? y * static_cast<float>(weight[c]) : y;
  };
  honest::normalise_row<T, false>(out, weight, r, cols, honest::inv_rms(sum_sq, cols, eps), honest::load_x(x, r, cols),
                                  weight_unless_cheap);
}
