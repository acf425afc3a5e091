#pragma once
// BROKEN (two outputs): writes residual_out correctly and never writes y. Expected: incorrect,
// the reason naming 'y'.
#include <cuda_bf16.h>

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
residual_norm_kernel(T* residual_out, T* y, const T* residual, const T* x, const float* gate, int rows, int cols, float eps) {
  const long long row = static_cast<long long>(blockIdx.x) * cols;
  for (int c = threadIdx.x; c < cols; c += BLOCK) residual_out[row + c] = T(float(residual[row + c]) + gate[c] * float(x[row + c]));
}
