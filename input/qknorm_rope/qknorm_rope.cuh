#pragma once
// Fused QK-norm + RoPE reference: the trusted baseline the solution is validated against.
//
// In place on q [N, H, D] and k [N, H, D] (token strides q_stride / k_stride, head stride D),
// per head of token n, in fp32 with one rounding per element at the store:
//
//   r    = rsqrt(sum_d x[d]^2 / D + eps)
//   y[d] = x[d] * r * w[d]                      (w = q_weight for q, k_weight for k)
//   then RoPE on y with c = cache[pos[n], i], s = cache[pos[n], R/2 + i], i < R/2:
//     interleaved: (a, b) = (y[2i], y[2i+1]);  NeoX: (a, b) = (y[i], y[i + R/2])
//     a' = a*c - b*s,  b' = b*c + a*s
//   x[d] = T(rotated or, for d >= R, normed y[d])
//
// SGLang's fused_inplace_qknorm_rope with round_norm_before_rope = False (its default: the
// normed value stays fp32 into the rotation; context/qknorm_rope.md). Plain on purpose: one
// block of 256 threads (8 warps) per token, a warp per head (q heads then k heads), scalar
// accesses, the sum of squares reduced by shuffles before any element is written. Any even
// R <= D. Launch: grid = N, block = 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace qknorm_rope_reference_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

}  // namespace qknorm_rope_reference_detail

template <typename T, typename IdT, bool NEOX>
__global__ void qknorm_rope_reference(T* q, T* k, const T* q_weight, const T* k_weight, const float* cos_sin_cache,
                                      const IdT* pos, int N, int H, int D, int R, long long q_stride,
                                      long long k_stride, float eps) {
  using namespace qknorm_rope_reference_detail;
  const long long n = blockIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int half = R / 2;
  const float* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
  for (int hh = warp; hh < 2 * H; hh += warps) {
    const bool is_q = hh < H;
    T* x = is_q ? q + n * q_stride + static_cast<long long>(hh) * D : k + n * k_stride + static_cast<long long>(hh - H) * D;
    const T* w = is_q ? q_weight : k_weight;
    float sum = 0.f;
    for (int d = lane; d < D; d += 32) sum += to_float(x[d]) * to_float(x[d]);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float r = rsqrtf(sum / D + eps);
    for (int i = lane; i < half; i += 32) {
      const int ia = NEOX ? i : 2 * i, ib = NEOX ? i + half : 2 * i + 1;
      const float a = to_float(x[ia]) * r * to_float(w[ia]), b = to_float(x[ib]) * r * to_float(w[ib]);
      const float c = row[i], s = row[half + i];
      x[ia] = from_float<T>(a * c - b * s);
      x[ib] = from_float<T>(b * c + a * s);
    }
    for (int d = R + lane; d < D; d += 32) x[d] = from_float<T>(to_float(x[d]) * r * to_float(w[d]));
  }
}
