#pragma once
// A deliberately wrong layernorm solution (tests/gpu/layernorm_test.cpp): the variance is taken
// around zero, mean(x^2), instead of around the mean, the slip of a LayerNorm written from an
// RMSNorm. Everything else is right (the mean is subtracted before scaling, one rounding), so
// only the task's inputs can catch it: with x ~ N(0.5, 1) every output is about 10% too small
// (mean(x^2) = var + mean^2 = 1.25) and the run must call it incorrect, naming 'out'.
// The solution's template and launch (grid = ceil_div(rows, ROWS_PER_BLOCK), block = BLOCK), so
// ako launches it in the solution's place; plain code: the block walks its rows one at a time.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace layernorm_broken_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }

// Block-wide sum (BLOCK a power of two); reached by every thread.
template <int BLOCK> __device__ __forceinline__ float block_sum(float v, float* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();
  return total;
}

}  // namespace layernorm_broken_detail

template <typename T, bool AFFINE, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS, int X_L1 = 0, int BUDGET = 1,
          int STORE_CS = 1, int WB_EARLY = 0, int STATS = 0, int SURE = 0>
__global__ void __launch_bounds__(BLOCK)
layernorm_kernel(T* out, const T* x, const T* weight, const T* bias, int rows, int cols, float eps) {
  using namespace layernorm_broken_detail;
  __shared__ float partial[BLOCK];
  for (int r = 0; r < ROWS_PER_BLOCK; ++r) {
    const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + r;
    if (row >= rows) return;  // the same for the whole block
    const T* x_row = x + row * cols;
    float sum = 0.f, sum_sq = 0.f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
      const float v = to_float(x_row[c]);
      sum += v;
      sum_sq += v * v;
    }
    const float mean = block_sum<BLOCK>(sum, partial) / cols;
    const float rstd = rsqrtf(block_sum<BLOCK>(sum_sq, partial) / cols + eps);  // the bug: no - mean^2
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
      float y = (to_float(x_row[c]) - mean) * rstd;
      if (AFFINE) y = y * to_float(weight[c]) + to_float(bias[c]);
      store(out + row * cols + c, y);
    }
  }
}
