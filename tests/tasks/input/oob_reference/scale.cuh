#pragma once
// BROKEN reference (blame test): the inplace_scale reference, whose last 8 threads also write the
// 8 elements past the end of x. Expected (tests/gpu/reference_blame_test.cpp): every compare case
// skipped, fault reference_out_of_bounds_write, reason "reference at fault: ... the reference
// wrote past the end of buffer 'x' ..."; every reference check failed, out_of_bounds_write. The
// honest solution is never blamed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void scale_reference(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) x[i] = T(float(x[i]) * float(w[i % cols]));
  if (i >= n - 8 && i < n) x[i + 8] = T(0.f);
}
