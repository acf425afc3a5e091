#pragma once
// BROKEN (views): a correct QK-norm that also scribbles over the first element of each token's
// v, outside both of its views but inside the qkv allocation. Expected: failed,
// out_of_bounds_write, naming qkv.
#include <cuda_bf16.h>

template <typename T, int D, int WARPS>
__global__ void __launch_bounds__(32 * WARPS)
qknorm_kernel(T* q, T* k, const T* q_w, const T* k_w, int N, int H, int stride, float eps) {
  const long long item = static_cast<long long>(blockIdx.x) * WARPS + threadIdx.x / 32;
  if (item >= static_cast<long long>(N) * H) return;
  const int lane = threadIdx.x % 32;
  T* head = (blockIdx.y == 0 ? q : k) + (item / H) * stride + (item % H) * D;
  const T* w = blockIdx.y == 0 ? q_w : k_w;
  float sum = 0.f;
  for (int d = lane; d < D; d += 32) sum += float(head[d]) * float(head[d]);
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float inv = rsqrtf(sum / D + eps);
  for (int d = lane; d < D; d += 32) head[d] = T(float(head[d]) * inv * float(w[d]));
  if (blockIdx.y == 1 && item % H == 0 && lane == 0) k[(item / H) * stride + H * D] = T(0.f);  // v[token][0]
}
