#pragma once
// A wrong RoPE candidate with the solution's template and arguments: it rotates the other
// pairing (NeoX halves where the case says interleaved, adjacent pairs where it says NeoX). The
// values stay finite and of the right size, so only the comparison with the reference catches it
// (tests/gpu/rope_test.cpp). Grid-stride over every (token, tensor, head, pair).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, typename IdT, bool NEOX, int VEC, int HPT, int BLOCK, int CS>
__global__ void rope_kernel(T* q, T* k, const float* cos_sin_cache, const IdT* pos, int N, int H, int D, int R,
                            long long q_stride, long long k_stride) {
  constexpr bool kPairs = !NEOX;  // the bug
  const long long total = static_cast<long long>(N) * 2 * H * (R / 2);
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(p % (R / 2)), h = static_cast<int>((p / (R / 2)) % (2 * H));
    const long long n = p / ((R / 2) * 2 * H);
    T* x = h < H ? q + n * q_stride + h * D : k + n * k_stride + (h - H) * D;
    const float* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
    const int ia = kPairs ? i : 2 * i, ib = kPairs ? i + R / 2 : 2 * i + 1;
    const float a = static_cast<float>(x[ia]), b = static_cast<float>(x[ib]), c = row[i], s = row[R / 2 + i];
    x[ia] = static_cast<T>(a * c - b * s);
    x[ib] = static_cast<T>(b * c + a * s);
  }
}
