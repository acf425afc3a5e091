#pragma once
// Reference of the view capability task: one warp per (token, head, q-or-k), RMSNorm over D
// in fp32, one rounding, in place. q and k are views: row stride `stride`, head stride D.
#include <cuda_bf16.h>

template <typename T, int D>
__global__ void qknorm_reference(T* q, T* k, const T* q_w, const T* k_w, int N, int H, int stride, float eps) {
  T* head = (blockIdx.z == 0 ? q : k) + static_cast<long long>(blockIdx.x) * stride + blockIdx.y * D;
  const T* w = blockIdx.z == 0 ? q_w : k_w;
  float sum = 0.f;
  for (int d = threadIdx.x; d < D; d += 32) sum += float(head[d]) * float(head[d]);
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float inv = rsqrtf(sum / D + eps);
  for (int d = threadIdx.x; d < D; d += 32) head[d] = T(float(head[d]) * inv * float(w[d]));
}
