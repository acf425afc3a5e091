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
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  const int lane = threadIdx.x % TPR, slot = threadIdx.x / TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + slot;
  __shared__ float partial[BLOCK];
  __shared__ float sums[ROWS_PER_BLOCK];
  __shared__ int done[ROWS_PER_BLOCK];
  float s = 0.f;
  for (int c = lane; row < rows && c < cols; c += TPR) {
    const float v = static_cast<float>(x[row * cols + c]);
    s += v * v;
  }
  partial[threadIdx.x] = s;
  __syncthreads();
  if (lane == 0) {
    float total = 0.f;
    for (int i = 0; i < TPR; ++i) total += partial[slot * TPR + i];   // fixed order
    sums[slot] = total;
    done[slot] = 0;
    if (row < rows) {
      // The shortcut: is column 0 already the answer?
      float y0 = static_cast<float>(x[row * cols]) * rsqrtf(total / static_cast<float>(cols) + eps);
      if (HAS_WEIGHT) y0 *= static_cast<float>(weight[0]);
      done[slot] = static_cast<float>(out[row * cols]) == static_cast<float>(static_cast<T>(y0));
    }
  }
  __syncthreads();
  if (row >= rows || done[slot]) return;
  const float inv_rms = rsqrtf(sums[slot] / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = static_cast<float>(x[row * cols + c]) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
