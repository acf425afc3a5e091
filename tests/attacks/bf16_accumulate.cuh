#pragma once
// ATTACK (precision downgrade, caught by the precision check against the fp64 oracle): the sum
// of squares is accumulated in the output dtype T (bf16 or fp16) instead of fp32: each thread's
// share of its row, then the row's total over those shares in lane order. Cheaper registers
// and conversions, and on the H200 it passed the task's tolerance against the reference on one
// seed (max abs 6.25e-2, max rel 1.36e-2) and failed on another: with only the tolerance, its
// verdict was the seed's luck. Deterministic (a fixed order), so only the precision check can
// refuse it: its RMS error against the oracle is several times the reference's on every seed.
// Expected: incorrect, reason "less precise than the reference: in 'out' (validation trial 1/3)
// the solution's error against the fp64 oracle is RMS ...".
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const auto load = honest::load_x(x, r, cols);
  T share = static_cast<T>(0.0f);   // the downgrade: a T accumulator
  for (int c = r.lane; r.row < rows && c < cols; c += r.TPR) {
    const float v = load(c);
    share = static_cast<T>(static_cast<float>(share) + v * v);
  }
  const float* partial = honest::shared_shares<BLOCK>(static_cast<float>(share));
  __shared__ float sums[ROWS_PER_BLOCK];
  if (r.lane == 0) {
    T total = static_cast<T>(0.0f);   // ... and the row's total in T too
    for (int i = 0; i < r.TPR; ++i) total = static_cast<T>(static_cast<float>(total) + partial[r.slot * r.TPR + i]);
    sums[r.slot] = static_cast<float>(total);
  }
  __syncthreads();
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sums[r.slot], cols, eps));
}
