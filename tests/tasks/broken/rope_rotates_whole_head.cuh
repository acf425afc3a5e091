#pragma once
// A wrong RoPE candidate with the solution's template and arguments: it ignores partial rotary
// and rotates all D / 2 pairs of every head, pair i with the cos/sin of pair i % (R / 2)
// (inside the row: a read past the cache would blame the wrong thing). Right wherever R == D; with R < D the pass-through elements change, which
// tests/gpu/rope_test.cpp shows incorrect. Grid-stride over every (token, tensor, head, pair).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, typename IdT, bool NEOX, int VEC, int HPT, int BLOCK, int CS>
__global__ void rope_kernel(T* q, T* k, const float* cos_sin_cache, const IdT* pos, int N, int H, int D, int R,
                            long long q_stride, long long k_stride) {
  const int kHalf = D / 2;  // the bug: R / 2
  const long long total = static_cast<long long>(N) * 2 * H * kHalf;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(p % kHalf), h = static_cast<int>((p / kHalf) % (2 * H));
    const long long n = p / (kHalf * 2 * H);
    T* x = h < H ? q + n * q_stride + h * D : k + n * k_stride + (h - H) * D;
    const float* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
    const int ia = NEOX ? i : 2 * i, ib = NEOX ? i + kHalf : 2 * i + 1;
    const float a = static_cast<float>(x[ia]), b = static_cast<float>(x[ib]), c = row[i % (R / 2)],
                s = row[R / 2 + i % (R / 2)];
    x[ia] = static_cast<T>(a * c - b * s);
    x[ib] = static_cast<T>(b * c + a * s);
  }
}
