#pragma once
// Reference and fp64 oracle of the two-output capability task. The norm runs on residual_out
// as stored (rounded to T), as SGLang's fused kernel does.
#include <cuda_bf16.h>

template <typename T, typename G>
__global__ void residual_norm_reference(T* residual_out, T* y, const T* residual, const T* x, const G* gate, int rows,
                                        int cols, float eps) {
  const long long row = static_cast<long long>(blockIdx.x) * cols;
  __shared__ float partial[256];
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += 256) {
    const T r = T(float(residual[row + c]) + float(gate[c]) * float(x[row + c]));
    residual_out[row + c] = r;
    sum += float(r) * float(r);
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += 256) y[row + c] = T(float(residual_out[row + c]) * inv);
}

// The oracle rounds residual_out to bf16 before the norm, as the op's definition does.
__global__ void residual_norm_oracle(double* residual_out, double* y, const double* residual, const double* x,
                                     const double* gate, int rows, int cols, float eps) {
  const long long row = static_cast<long long>(blockIdx.x) * cols;
  double sum = 0.0;
  for (int c = 0; c < cols; ++c) {
    const double r = __bfloat162float(__float2bfloat16_rn(static_cast<float>(residual[row + c] + gate[c] * x[row + c])));
    residual_out[row + c] = r;
    sum += r * r;
  }
  const double inv = 1.0 / sqrt(sum / cols + static_cast<double>(eps));
  for (int c = 0; c < cols; ++c) y[row + c] = residual_out[row + c] * inv;
}
