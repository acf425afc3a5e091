#pragma once
// ATTACK (outputs poisoned before every launch, also while timing): skip the work on repeated inputs.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Each row first computes its column 0
// and compares it with what `out` already holds there; if they match, the row "was done by the
// previous call" and is skipped. A benchmark loop that re-launches on the same buffers then
// times a kernel that only reads one element per row (the "work skipped on repeated inputs"
// exploit; no device global, so the static checks have nothing to see).
// ako poisons every output before every launch, timed ones included, and rotates input sets, so
// the shortcut never fires: the kernel does all the work and is timed honestly. Without that
// defence it would be refused as implausible (far above the copy bandwidth).
// Expected: correct, with a plausible solution time (no implausible refusal).
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  __shared__ float sums[ROWS_PER_BLOCK];
  __shared__ int done[ROWS_PER_BLOCK];
  const float* partial = honest::shared_shares<BLOCK>(honest::partial_sum_of_squares(x, r, rows, cols));
  if (r.lane == 0) {
    const float total = honest::fixed_order_sum(partial, r);
    sums[r.slot] = total;
    done[r.slot] = 0;
    if (r.row < rows) {
      // The shortcut: is column 0 already the answer?
      float y0 = static_cast<float>(x[r.row * cols]) * honest::inv_rms(total, cols, eps);
      if (HAS_WEIGHT) y0 *= static_cast<float>(weight[0]);
      done[r.slot] = static_cast<float>(out[r.row * cols]) == static_cast<float>(static_cast<T>(y0));
    }
  }
  __syncthreads();
  if (r.row >= rows || done[r.slot]) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sums[r.slot], cols, eps));
}
