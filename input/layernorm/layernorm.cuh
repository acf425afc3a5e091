#pragma once
// LayerNorm reference: the trusted baseline the solution is validated against.
//
//   mean = sum_c x[r, c] / cols
//   var  = sum_c (x[r, c] - mean)^2 / cols                       (biased, two passes)
//   y[r, c] = T( (x[r, c] - mean) * rsqrt(var + eps) * w[c] + b[c] )   (w = 1, b = 0 without affine)
//
// SGLang's conventions (context/layernorm.md): fp32 statistics, the variance around the mean
// (not E[x^2] - E[x]^2), the affine weight and bias both present or both absent, one rounding
// to T at the store. Plain on purpose: one block of 256 threads per row, shared-memory tree
// reductions, x re-read from memory for each pass, scalar accesses, so any cols and any
// alignment. Launch: grid = rows, block = 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace layernorm_reference_detail {

constexpr int kBlock = 256;  // the launch contract; the shared-memory tree below relies on it

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(float v) { return v; }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }

// Sum of every thread's v over the block, seen by all of them. Reached by every thread.
__device__ __forceinline__ float block_sum(float v, float* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();  // partial is reused by the next reduction
  return total;
}

}  // namespace layernorm_reference_detail

template <typename T, bool AFFINE>
__global__ void __launch_bounds__(256)
layernorm_reference(T* out, const T* x, const T* weight, const T* bias, int rows, int cols, float eps) {
  using namespace layernorm_reference_detail;
  if (blockDim.x != kBlock) __trap();  // a wrong launch must fail loudly, not give wrong sums
  const int row = blockIdx.x;
  if (row >= rows) return;  // whole block leaves together: no barrier is skipped by some threads
  const T* x_row = x + static_cast<long long>(row) * cols;
  T* out_row = out + static_cast<long long>(row) * cols;
  __shared__ float partial[kBlock];

  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += kBlock) sum += to_float(x_row[c]);
  const float mean = block_sum(sum, partial) / static_cast<float>(cols);

  float sum_sq = 0.f;
  for (int c = threadIdx.x; c < cols; c += kBlock) {
    const float d = to_float(x_row[c]) - mean;
    sum_sq += d * d;
  }
  const float rstd = rsqrtf(block_sum(sum_sq, partial) / static_cast<float>(cols) + eps);

  for (int c = threadIdx.x; c < cols; c += kBlock) {
    float y = (to_float(x_row[c]) - mean) * rstd;
    if (AFFINE) y = y * to_float(weight[c]) + to_float(bias[c]);
    out_row[c] = from_float<T>(y);
  }
}
