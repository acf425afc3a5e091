#pragma once
// BROKEN baseline (blame test): the inplace_scale reference as a baseline, whose last 8 threads
// also write the 8 elements past the end of x (into the guard band). Expected
// (tests/gpu/kernel_blame_test.cpp): the baseline `oob` failed, fault out_of_bounds_write, reason
// "baseline at fault: out-of-bounds write: the baseline oob wrote past the end of buffer 'x' ...";
// the solution correct and timed in every compare case (its guards are not blamed on it), the
// baseline `plain` too; exit 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void scale_oob(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) x[i] = T(float(x[i]) * float(w[i % cols]));
  if (i >= n - 8 && i < n) x[i + 8] = T(0.f);
}
