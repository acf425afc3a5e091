#pragma once
// Deliberately wrong drop-in for solution/norm_scale_shift/norm_scale_shift.cuh (both tasks,
// same name expressions and launch geometry): every [B, F, 1, C] tensor (scale, shift, gate)
// is read at frame 0 for every token, the frame index l / (L / F) forgotten. Right wherever
// F == 1 or nothing is per-frame; wrong on Wan's and HunyuanVideo's frames. ako run must call
// those cases incorrect (y, and residual_out when the gate is per-frame) and the rest correct:
// tests/gpu/norm_scale_shift_test.cpp and residual_gate_norm_scale_shift_test.cpp.
// Plain: the block's tokens (ROWS_PER_BLOCK * TOKENS of them) one after the other.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Norm { layer, rms };
enum class Layout { none, scalar, c, bc, lc, blc, bf1c };

namespace broken_detail {

template <Layout M>
__device__ long long offset(int b, int l, int c, int L, int C, int F) {
  if (M == Layout::scalar) return 0;
  if (M == Layout::c) return c;
  if (M == Layout::bc) return static_cast<long long>(b) * C + c;
  if (M == Layout::lc) return static_cast<long long>(l) * C + c;
  if (M == Layout::blc) return (static_cast<long long>(b) * L + l) * C + c;
  return static_cast<long long>(b) * F * C + c;  // the bug: frame 0 always
}

template <int BLOCK> __device__ float block_sum(float v, float* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = 512; s > 0; s /= 2) {  // any BLOCK up to 1024, powers of two or not
    if (threadIdx.x < s && threadIdx.x + s < BLOCK) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float sum = partial[0];
  __syncthreads();
  return sum;
}

template <typename T, typename S, Norm NORM, Layout MOD, Layout GATE, bool AFFINE, bool RESIDUAL, int BLOCK, int RPB>
__device__ void rows(T* y, T* residual_out, const T* in, const T* x, const S* gate, const T* weight, const T* bias,
                     const S* scale, const S* shift, int B, int L, int C, int F, float eps) {
  __shared__ float partial[1024];
  for (int r = 0; r < RPB; ++r) {
    const int token = static_cast<int>(blockIdx.x) * RPB + r;
    if (token >= B * L) return;  // uniform over the block
    const int b = token / L, l = token % L;
    const long long row = static_cast<long long>(token) * C;
    const T* src = in + row;
    if (RESIDUAL) {
      for (int c = threadIdx.x; c < C; c += BLOCK) {
        const float g = GATE == Layout::none ? 1.0f : float(gate[offset<GATE>(b, l, c, L, C, F)]);
        residual_out[row + c] = T(float(in[row + c]) + g * float(x[row + c]));
      }
      src = residual_out + row;
    }
    float mean = 0.f, sum = 0.f, sq = 0.f;
    if (NORM == Norm::layer) {
      for (int c = threadIdx.x; c < C; c += BLOCK) sum += float(src[c]);
      mean = block_sum<BLOCK>(sum, partial) / C;
    }
    for (int c = threadIdx.x; c < C; c += BLOCK) sq += (float(src[c]) - mean) * (float(src[c]) - mean);
    const float rstd = rsqrtf(block_sum<BLOCK>(sq, partial) / C + eps);
    for (int c = threadIdx.x; c < C; c += BLOCK) {
      float n = (float(src[c]) - mean) * rstd;
      if (AFFINE) n = NORM == Norm::layer ? n * float(weight[c]) + float(bias[c]) : n * float(weight[c]);
      const long long m = offset<MOD>(b, l, c, L, C, F);
      y[row + c] = T(n * (1.0f + float(scale[m])) + float(shift[m]));
    }
  }
}

}  // namespace broken_detail

template <typename T, typename S, Norm NORM, Layout MOD, bool AFFINE, int BLOCK, int VEC, int ROWS_PER_BLOCK,
          int CHUNKS, int EARLY_MOD, int MIN_BLOCKS = 0, int ROW_CACHE = 0, int TOKENS = 1,
          int STORE_CS = 1, int STATS = 0, int WALK = 1, int DEPTH = 1, int SURE = 0>
__global__ void norm_scale_shift_kernel(T* y, const T* x, const T* weight, const T* bias, const S* scale,
                                        const S* shift, int B, int L, int C, int F, float eps) {
  broken_detail::rows<T, S, NORM, MOD, Layout::none, AFFINE, false, BLOCK, ROWS_PER_BLOCK * TOKENS * WALK>(
      y, nullptr, x, nullptr, nullptr, weight, bias, scale, shift, B, L, C, F, eps);
}

template <typename T, typename S, Norm NORM, Layout MOD, Layout GATE, bool AFFINE, int BLOCK, int VEC,
          int ROWS_PER_BLOCK, int CHUNKS, int EARLY_MOD, int MIN_BLOCKS = 0, int ROW_CACHE = 0, int TOKENS = 1,
          int STORE_CS = 1, int STATS = 0, int WALK = 1, int DEPTH = 1, int SURE = 0>
__global__ void residual_gate_norm_scale_shift_kernel(T* y, T* residual_out, const T* residual, const T* x,
                                                      const S* gate, const T* weight, const T* bias, const S* scale,
                                                      const S* shift, int B, int L, int C, int F, float eps) {
  broken_detail::rows<T, S, NORM, MOD, GATE, AFFINE, true, BLOCK, ROWS_PER_BLOCK * TOKENS * WALK>(
      y, residual_out, residual, x, gate, weight, bias, scale, shift, B, L, C, F, eps);
}
