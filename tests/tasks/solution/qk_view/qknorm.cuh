#pragma once
// Solution of the view capability task: WARPS heads per block, one warp per head.
#include <cuda_bf16.h>

template <typename T, int D, int WARPS>
__global__ void __launch_bounds__(32 * WARPS)
qknorm_kernel(T* q, T* k, const T* q_w, const T* k_w, int N, int H, int stride, float eps) {
  const long long item = static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / 32;
  if (item >= static_cast<long long>(N) * H) return;
  const int lane = threadIdx.x % 32;
  T* head = (blockIdx.y == 0 ? q : k) + (item / H) * stride + (item % H) * D;
  const T* w = blockIdx.y == 0 ? q_w : k_w;
  float v[D / 32];
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < D / 32; ++i) {
    v[i] = float(head[lane + 32 * i]);
    sum += v[i] * v[i];
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float inv = rsqrtf(sum / D + eps);
#pragma unroll
  for (int i = 0; i < D / 32; ++i) head[lane + 32 * i] = T(v[i] * inv * float(w[lane + 32 * i]));
}
