#pragma once
// RoPE reference: the trusted baseline the solution is validated against.
//
// In place on q [N, H, D] and k [N, H, D] (token stride q_stride / k_stride elements, head
// stride D), with the fp32 cache cos_sin_cache [P, R] = [cos(0..R/2) | sin(0..R/2)] per row
// and pos [N] (int or long long), for each token n, head h and pair i < R/2, with
// c = cache[pos[n], i], s = cache[pos[n], R/2 + i]:
//
//   interleaved (GPT-J, NEOX = false): (a, b) = (x[2i], x[2i + 1])
//   NeoX        (NEOX = true):         (a, b) = (x[i],  x[i + R/2])
//   a' = T(a * c - b * s),  b' = T(b * c + a * s)        (fp32 math, one rounding each)
//
// Elements R..D-1 of every head pass through untouched (partial rotary). This is FlashInfer's
// apply_rope_with_cos_sin_cache_inplace (context/rope.md). Plain on purpose: one block of 256
// threads per token, one thread per (tensor, head, pair), scalar accesses, so any even R <= D
// and any alignment. Launch: grid = N, block = 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace rope_reference_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(float v) { return v; }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }

}  // namespace rope_reference_detail

template <typename T, typename IdT, bool NEOX>
__global__ void rope_reference(T* q, T* k, const float* cos_sin_cache, const IdT* pos, int N, int H, int D, int R,
                               long long q_stride, long long k_stride) {
  using namespace rope_reference_detail;
  const long long n = blockIdx.x;
  const int half = R / 2;
  const float* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
  for (int p = threadIdx.x; p < 2 * H * half; p += blockDim.x) {
    const int tensor = p / (H * half), h = (p / half) % H, i = p % half;
    T* x = tensor == 0 ? q + n * q_stride + static_cast<long long>(h) * D : k + n * k_stride + static_cast<long long>(h) * D;
    const int ia = NEOX ? i : 2 * i, ib = NEOX ? i + half : 2 * i + 1;
    const float c = row[i], s = row[half + i];
    const float a = to_float(x[ia]), b = to_float(x[ib]);
    x[ia] = from_float<T>(a * c - b * s);
    x[ib] = from_float<T>(b * c + a * s);
  }
}
