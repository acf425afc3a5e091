#pragma once
// BROKEN reference (blame test): the inplace_scale reference, whose first thread also stores
// 2^40 elements past x, far outside any allocation, so the context dies with
// CUDA_ERROR_ILLEGAL_ADDRESS. Expected (tests/gpu/reference_blame_test.cpp): every compare case
// skipped, fault reference_illegal_address, reason "reference at fault: illegal address ...";
// every reference check failed, illegal_address. The honest solution is never blamed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void scale_reference(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) x[i] = T(float(x[i]) * float(w[i % cols]));
  if (i == 0) x[(1ll << 40) + cols] = T(1.f);
}
