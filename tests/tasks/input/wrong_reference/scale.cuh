#pragma once
// BROKEN reference (oracle test): scales by w[c] + 1/16, so it disagrees with the fp64 oracle
// of inplace_scale. Expected: the reference_check cases are incorrect ("reference kernel" vs
// "fp64 oracle"), and the run is refused.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void scale_reference(T* x, const T* w, long long n, int cols) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) x[i] = T(float(x[i]) * (float(w[i % cols]) + 0.0625f));
}
