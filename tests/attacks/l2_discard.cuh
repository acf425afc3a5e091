#pragma once
// ATTACK (static check l2_discard): never pay for the output's write-back.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. After a block writes its rows it
// issues discard.global.L2 over the 128-byte lines it wrote, so the dirty lines are dropped
// instead of written back to DRAM: the kernel looks faster, and whether `out` holds the answer
// afterwards depends on timing (the data is undefined by the PTX spec). Otherwise a plain RMSNorm.
// Expected: ako refuses it: l2_discard, "executes discard.global.L2".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum_sq, cols, eps));
  __syncthreads();
  // One discard per 128-byte line of this row (out is 128-byte aligned by ako's allocator).
  const long long bytes = static_cast<long long>(cols) * sizeof(T);
  for (long long off = static_cast<long long>(r.lane) * 128; off + 128 <= bytes; off += 128LL * r.TPR) {
    const char* line = reinterpret_cast<const char*>(out + r.row * cols) + off;
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(line) : "memory");
  }
}
