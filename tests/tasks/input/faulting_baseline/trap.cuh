#pragma once
// BROKEN baseline (blame test): the inplace_scale reference as a baseline, whose first thread
// then calls __trap(), which kills the CUDA context (CUDA_ERROR_LAUNCH_FAILED). Expected
// (tests/gpu/kernel_blame_test.cpp): the baseline `trap` failed, fault trap, reason "baseline at
// fault: trap ..."; the solution correct and timed in every compare case, the baseline `plain`
// too; exit 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void scale_trap(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) x[i] = T(float(x[i]) * float(w[i % cols]));
  if (i == 0) __trap();
}
