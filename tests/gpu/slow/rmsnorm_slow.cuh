#pragma once
// The real solution made clearly slower, still correct: for the gate's GPU test (a committed
// baseline, then this kernel must fail the gate with a timing regression).
//
// It is the shipped solution/rmsnorm/rmsnorm.cuh (included, so it follows that kernel), with
// its entry point renamed; the entry below first reads kExtraReads *other* rows in full (rows
// far from its own, so on large shapes the reads go to DRAM, not L2) and then runs the real
// row code. Those loads are volatile asm: the compiler may not drop them, and their sum only
// feeds a test that never holds, so the output is bit-identical to the real kernel's.
// On a memory-bound kernel, 2 extra row reads roughly double the DRAM traffic (1 read + 1
// write becomes 3 reads + 1 write).
#define rmsnorm_kernel rmsnorm_kernel_real
#include "../../../solution/rmsnorm/rmsnorm.cuh"
#undef rmsnorm_kernel

namespace rmsnorm_slow {
constexpr int kExtraReads = 2;

__device__ __forceinline__ float volatile_load_bits(const unsigned short* p) {
  unsigned short v;
  asm volatile("ld.global.cv.u16 %0, [%1];" : "=h"(v) : "l"(p));
  return static_cast<float>(v);
}
}  // namespace rmsnorm_slow

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  using namespace rmsnorm_detail;
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  const int lane = threadIdx.x % TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + threadIdx.x / TPR;
  const bool row_ok = row < rows;

  // The slowdown: whole far-away rows, element by element.
  float wasted = 0.f;
  if (row_ok)
    for (int pass = 1; pass <= rmsnorm_slow::kExtraReads; ++pass) {
      const long long other = (row + static_cast<long long>(pass) * rows / (rmsnorm_slow::kExtraReads + 1)) % rows;
      const auto* p = reinterpret_cast<const unsigned short*>(x + other * cols);
      for (int c = lane; c < cols; c += TPR) wasted += rmsnorm_slow::volatile_load_bits(p + c);
    }
  // Never true (a sum of non-negative values), but hidden from the optimiser by the empty asm.
  asm volatile("" : "+f"(wasted));
  if (wasted < 0.f) eps = -eps;

  // The real kernel's body, unchanged.
  const int n_chunks = cols / VEC;
  const float inv_cols = reciprocal(static_cast<float>(cols));
  T* out_row = out + row * cols;
  const T* x_row = x + row * cols;
  if (n_chunks <= CHUNKS * TPR)
    cached_row<T, HAS_WEIGHT, BLOCK, VEC, TPR, CHUNKS>(out_row, x_row, weight, row_ok, lane, n_chunks, inv_cols, eps);
  else
    streamed_row<T, HAS_WEIGHT, BLOCK, VEC, TPR, CHUNKS>(out_row, x_row, weight, row_ok, lane, n_chunks, inv_cols, eps);
}
