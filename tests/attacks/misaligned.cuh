#pragma once
// FAULT (taxonomy: misaligned): a vectorised load from an address that is not 16-byte aligned.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh that reads x in 16-byte chunks starting
// one element (2 bytes) into the row, the classic off-by-one in a hand-vectorised kernel.
// Expected: failed, fault misaligned ("misaligned address"); the worker restarts for the next case.
#include "honest_rmsnorm.cuh"

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  if (r.row >= rows) return;
  // 8 elements per 16-byte load, from element 1 of the row: misaligned by 2 bytes.
  const uint4 chunk = *reinterpret_cast<const uint4*>(x + r.row * cols + 1 + 8 * r.lane);
  const float v = static_cast<float>(chunk.x & 0xffffu);
  out[r.row * cols + r.lane] = static_cast<T>(v * eps);
}
