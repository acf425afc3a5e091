#pragma once
// Reference of the qknorm task (tasks/qknorm, context/qknorm.md): RMSNorm in place on q [N, Hq, D]
// and k [N, Hk, D], views into the packed qkv row [q | k | v] of `stride` elements, head stride D.
//   per head (ACROSS false): each of the Hq + Hk heads of a token is a row of D elements,
//                            weight q_weight / k_weight [D] (FLUX, Qwen-Image, HunyuanVideo, Wan 2.2)
//   across heads (ACROSS true): q and k of a token are one row each, of Hq * D and Hk * D
//                            elements, weight [Hq * D] / [Hk * D] (Wan 2.1, LTX-Video)
// y = T(x * rsqrt(sum(x^2) / len + eps) * w): sum of squares in fp32, one rounding at the store,
// as SGLang's fused_inplace_qknorm. Plain: one block of 256 threads per row, grid (N, rows per token).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, int D, bool ACROSS>
__global__ void qknorm_reference(T* q, T* k, const T* q_weight, const T* k_weight, int N, int Hq, int Hk,
                                 long long stride, float eps) {
  __shared__ float partial[256 / 32];
  const int rows_q = ACROSS ? 1 : Hq;
  const int r = blockIdx.y;  // q rows first, then k rows
  const bool is_q = r < rows_q;
  const int len = ACROSS ? (is_q ? Hq : Hk) * D : D;
  const int head = ACROSS ? 0 : (is_q ? r : r - rows_q);
  T* row = (is_q ? q : k) + static_cast<long long>(blockIdx.x) * stride + static_cast<long long>(head) * D;
  const T* w = is_q ? q_weight : k_weight;

  float sum = 0.f;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    const float v = static_cast<float>(row[i]);
    sum += v * v;
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0.f;
  for (int i = 0; i < static_cast<int>(blockDim.x / 32); ++i) total += partial[i];
  const float inv = rsqrtf(total / static_cast<float>(len) + eps);
  // each thread rewrites exactly the elements it read
  for (int i = threadIdx.x; i < len; i += blockDim.x)
    row[i] = static_cast<T>(static_cast<float>(row[i]) * inv * static_cast<float>(w[i]));
}
