#pragma once
// A wrong fused QK-norm + RoPE candidate with the solution's template and arguments: it
// normalises and rotates but never multiplies by the weight (as if the norm had no affine).
// With weights ~ N(1, 0.25) the outputs are off by about 25%, which
// tests/gpu/qknorm_rope_test.cpp shows incorrect. One warp per head, grid-stride over the heads
// the solution's grid covers.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, typename IdT, bool NEOX, int LANES, int EPL, int HPG, int BLOCK, int REGS, int SPLIT, int PIPE,
          int ASYNC>
__global__ void qknorm_rope_kernel(T* q, T* k, const T* q_weight, const T* k_weight, const float* cos_sin_cache,
                                   const IdT* pos, int N, int H, int D, int R, long long q_stride, long long k_stride,
                                   float eps) {
  const int lane = threadIdx.x % 32, half = R / 2;
  const long long heads = static_cast<long long>(N) * 2 * H;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x / 32) + threadIdx.x / 32; idx < heads;
       idx += warps) {
    const long long n = idx / (2 * H);
    const int hh = static_cast<int>(idx % (2 * H));
    T* x = hh < H ? q + n * q_stride + hh * D : k + n * k_stride + (hh - H) * D;
    float sum = 0.f;
    for (int d = lane; d < D; d += 32) sum += static_cast<float>(x[d]) * static_cast<float>(x[d]);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float r = rsqrtf(sum / D + eps);  // the bug: no weight below
    const float* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
    for (int i = lane; i < half; i += 32) {
      const int ia = NEOX ? i : 2 * i, ib = NEOX ? i + half : 2 * i + 1;
      const float a = static_cast<float>(x[ia]) * r, b = static_cast<float>(x[ib]) * r;
      x[ia] = static_cast<T>(a * row[i] - b * row[half + i]);
      x[ib] = static_cast<T>(b * row[i] + a * row[half + i]);
    }
    for (int d = R + lane; d < D; d += 32) x[d] = static_cast<T>(static_cast<float>(x[d]) * r);
    __syncwarp();
  }
}
