// A templated kernel over the half-precision types, for the jit tests and benchmark.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "scale_math.cuh"

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) scale_kernel(T* out, const T* in, float s, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = T(ako_test_scale(float(in[i]), s));
}
