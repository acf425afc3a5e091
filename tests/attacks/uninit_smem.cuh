#pragma once
// ATTACK (determinism: candidate, reference, candidate): reads shared memory it never wrote.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Each row's sum of squares goes into a
// shared accumulator that the kernel assumes starts at zero: it "cleans up" by zeroing it on the
// way out instead of initialising it on the way in. Whatever the previous kernel left in that
// shared memory leaks into the first rows each SM normalises; it passes whenever the leftovers
// happen to be zeros, the classic "works on my machine" bug (the Makora/KernelArena run-twice
// catch). ako runs the solution twice on the same inputs, after writing zeros and then all-ones
// over every SM's shared memory: the two outputs differ.
// The row reduction itself is deterministic (fixed order), so only the uninitialised read varies.
// Expected: incorrect, reason "nondeterministic: two runs of the solution on the same inputs differ in 'out'".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  __shared__ float acc[ROWS_PER_BLOCK];   // BUG: never initialised, assumed zero
  const float* partial = honest::shared_shares<BLOCK>(honest::partial_sum_of_squares(x, r, rows, cols));
  if (r.lane == 0) acc[r.slot] += honest::fixed_order_sum(partial, r);   // reads the leftover
  __syncthreads();
  const float sum = acc[r.slot];
  __syncthreads();
  if (r.lane == 0) acc[r.slot] = 0.f;   // "clean up" for the next block on this SM
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum, cols, eps));
}
