#pragma once
// RMSNorm reference: the trusted baseline the solution is validated against.
//
//   y[r, c] = T( x[r, c] * rsqrt(mean_c(x[r, :]^2) + eps) * w[c] )   (w = 1 without a weight)
//
// Plain on purpose: one block of 256 threads per row, fp32 accumulation, a shared-memory
// tree reduction, and a single rounding to T at the end. Any cols (no vector loads, so no
// alignment or divisibility assumptions). Launch: grid = rows, block = 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace rmsnorm_reference_detail {

constexpr int kBlock = 256;  // the launch contract; the shared-memory tree below relies on it

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

}  // namespace rmsnorm_reference_detail

template <typename T, bool HAS_WEIGHT>
__global__ void __launch_bounds__(256)
rmsnorm_reference(T* out, const T* x, const T* weight, int rows, int cols, float eps) {
  using namespace rmsnorm_reference_detail;
  if (blockDim.x != kBlock) __trap();  // a wrong launch must fail loudly, not give wrong sums
  const int row = blockIdx.x;
  if (row >= rows) return;  // whole block leaves together: no barrier is skipped by some threads
  const T* x_row = x + static_cast<long long>(row) * cols;
  T* out_row = out + static_cast<long long>(row) * cols;

  float sum_sq = 0.f;
  for (int c = threadIdx.x; c < cols; c += kBlock) {
    const float v = to_float(x_row[c]);
    sum_sq += v * v;
  }

  __shared__ float partial[kBlock];
  partial[threadIdx.x] = sum_sq;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float inv_rms = rsqrtf(partial[0] / static_cast<float>(cols) + eps);

  for (int c = threadIdx.x; c < cols; c += kBlock) {
    float y = to_float(x_row[c]) * inv_rms;
    if (HAS_WEIGHT) y *= to_float(weight[c]);
    out_row[c] = from_float<T>(y);
  }
}
