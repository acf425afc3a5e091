#pragma once
// Solution of the two-output capability task: the reference's math, block size tunable.
#include <cuda_bf16.h>

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
residual_norm_kernel(T* residual_out, T* y, const T* residual, const T* x, const float* gate, int rows, int cols, float eps) {
  const long long row = static_cast<long long>(blockIdx.x) * cols;
  __shared__ float partial[BLOCK];
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    const T r = T(float(residual[row + c]) + gate[c] * float(x[row + c]));
    residual_out[row + c] = r;
    sum += float(r) * float(r);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += BLOCK) y[row + c] = T(float(residual_out[row + c]) * inv);
}
