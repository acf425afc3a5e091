#pragma once
// BROKEN (in place): scales only the first half of x and leaves the rest as it was. Expected:
// incorrect, the reason naming 'x'.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) scale_kernel(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * static_cast<long long>(BLOCK) + threadIdx.x;
  if (i < n / 2) x[i] = T(float(x[i]) * float(w[i % cols]));
}
