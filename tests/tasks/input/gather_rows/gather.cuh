#pragma once
// Reference (and, with T = double, the oracle: a gather is exact) of the integer-buffer
// capability task: one block per output row.
#include <cuda_bf16.h>

template <typename T, typename I, typename O>
__global__ void gather_reference(T* out, O* row_of, const T* table, const I* idx, int rows, int cols) {
  const int r = blockIdx.x;
  if (r >= rows) return;
  const I src = idx[r];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[static_cast<long long>(r) * cols + c] = table[static_cast<long long>(src) * cols + c];
  if (threadIdx.x == 0) row_of[r] = static_cast<O>(src);
}
