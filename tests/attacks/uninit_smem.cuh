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
  __shared__ float acc[ROWS_PER_BLOCK];   // BUG: never initialised, assumed zero
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
    acc[slot] += total;                                                // reads the leftover
  }
  __syncthreads();
  const float sum = acc[slot];
  __syncthreads();
  if (lane == 0) acc[slot] = 0.f;   // "clean up" for the next block on this SM
  if (row >= rows) return;
  const float inv_rms = rsqrtf(sum / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = static_cast<float>(x[row * cols + c]) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
