#pragma once
// norm + scale/shift reference (SGLang's fused_norm_scale_shift, as its test reference defines it):
//
//   n = LayerNorm(x) = (x - mean) * rsqrt(var + eps) [* w + b]   (biased variance, two passes)
//     or RMSNorm(x)  = x * rsqrt(mean(x^2) + eps) [* w]
//   y = T( n * (1 + scale) + shift )
//
// over x [B, L, C]; scale and shift broadcast from the layout's shape (modulation_offset).
// All in fp32, one rounding at the store: SGLang's test reference upcasts everything, normalises
// and modulates in fp32, and casts once (its CuTe DSL kernel also rounds n to T first; see
// context/norm_scale_shift.md). Plain on purpose: one block of 256 threads per token, any C.
// Launch: grid = B * L, block = 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Norm { layer, rms };
// Broadcast forms of scale / shift (and gate): [1], [C], [B, 1, C], [1, L, C], [B, L, C],
// [B, F, 1, C]; none = absent (a gate of 1).
enum class Layout { none, scalar, c, bc, lc, blc, bf1c };

namespace nss_reference_detail {

constexpr int kBlock = 256;

// Element (b, l, c) of a modulation tensor in layout M (frame = l / (L / F)).
template <Layout M>
__device__ __forceinline__ long long modulation_offset(int b, int l, int c, int L, int C, int F) {
  if (M == Layout::scalar) return 0;
  if (M == Layout::c) return c;
  if (M == Layout::bc) return static_cast<long long>(b) * C + c;
  if (M == Layout::lc) return static_cast<long long>(l) * C + c;
  if (M == Layout::blc) return (static_cast<long long>(b) * L + l) * C + c;
  return (static_cast<long long>(b) * F + l / (L / F)) * C + c;  // bf1c
}

// Sum over the block (every thread gets it); partial has kBlock entries.
__device__ __forceinline__ float block_sum(float v, float* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float sum = partial[0];
  __syncthreads();  // partial is reused by the next sum
  return sum;
}

}  // namespace nss_reference_detail

// One token: y_row = T(norm(in_row) * (1 + scale) + shift). Shared with the residual-gate
// reference (input/residual_gate_norm_scale_shift/), which normalises its rounded residual_out.
template <typename T, typename S, Norm NORM, Layout MOD, bool AFFINE>
__device__ void norm_scale_shift_row(T* y_row, const T* in_row, const T* weight, const T* bias, const S* scale,
                                     const S* shift, int b, int l, int L, int C, int F, float eps) {
  using namespace nss_reference_detail;
  __shared__ float partial[kBlock];
  float mean = 0.f;
  if (NORM == Norm::layer) {
    float sum = 0.f;
    for (int c = threadIdx.x; c < C; c += kBlock) sum += float(in_row[c]);
    mean = block_sum(sum, partial) / C;
  }
  float sum_sq = 0.f;  // of x - mean (layer) or of x (rms)
  for (int c = threadIdx.x; c < C; c += kBlock) {
    const float d = float(in_row[c]) - mean;
    sum_sq += d * d;
  }
  const float rstd = rsqrtf(block_sum(sum_sq, partial) / C + eps);

  for (int c = threadIdx.x; c < C; c += kBlock) {
    float n = (float(in_row[c]) - mean) * rstd;
    if (AFFINE) {
      n *= float(weight[c]);
      if (NORM == Norm::layer) n += float(bias[c]);
    }
    const long long m = modulation_offset<MOD>(b, l, c, L, C, F);
    y_row[c] = T(n * (1.0f + float(scale[m])) + float(shift[m]));
  }
}

template <typename T, typename S, Norm NORM, Layout MOD, bool AFFINE>
__global__ void __launch_bounds__(256)
norm_scale_shift_reference(T* y, const T* x, const T* weight, const T* bias, const S* scale, const S* shift, int B,
                           int L, int C, int F, float eps) {
  if (blockDim.x != nss_reference_detail::kBlock) __trap();  // the tree reduction relies on it
  const int token = blockIdx.x;
  const long long row = static_cast<long long>(token) * C;
  norm_scale_shift_row<T, S, NORM, MOD, AFFINE>(y + row, x + row, weight, bias, scale, shift, token / L, token % L, L,
                                                C, F, eps);
}
