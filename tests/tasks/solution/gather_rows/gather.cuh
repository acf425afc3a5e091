#pragma once
// Solution of the integer-buffer capability task: VEC elements per load.
#include <cuda_bf16.h>

template <typename T, int VEC>
__global__ void gather_kernel(T* out, long long* row_of, const T* table, const int* idx, int rows, int cols) {
  const int r = blockIdx.x;
  if (r >= rows) return;
  const long long src = idx[r];
  for (int c = threadIdx.x * VEC; c < cols; c += blockDim.x * VEC)
#pragma unroll
    for (int v = 0; v < VEC; ++v) out[static_cast<long long>(r) * cols + c + v] = table[src * cols + c + v];
  if (threadIdx.x == 0) row_of[r] = src;
}
