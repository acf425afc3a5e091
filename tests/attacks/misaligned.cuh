#pragma once
// FAULT (taxonomy: misaligned): a vectorised load from an address that is not 16-byte aligned.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh that reads x in 16-byte chunks starting
// one element (2 bytes) into the row, the classic off-by-one in a hand-vectorised kernel.
// Expected: failed, fault misaligned ("misaligned address"); the worker restarts for the next case.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  const int lane = threadIdx.x % TPR, slot = threadIdx.x / TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + slot;
  if (row >= rows) return;
  // 8 elements per 16-byte load, from element 1 of the row: misaligned by 2 bytes.
  const uint4 chunk = *reinterpret_cast<const uint4*>(x + row * cols + 1 + 8 * lane);
  const float v = static_cast<float>(chunk.x & 0xffffu);
  out[row * cols + lane] = static_cast<T>(v * eps);
}
