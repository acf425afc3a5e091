#pragma once
// Solution of the in-place capability task: the reference's math, block size tunable.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) scale_kernel(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * static_cast<long long>(BLOCK) + threadIdx.x;
  if (i < n) x[i] = T(float(x[i]) * float(w[i % cols]));
}
