#pragma once
// Reference and fp64 oracle of the modulation capability task (one block per token).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Layout { bc, blc, bf1c };

// Offset of the (b, l) row of scale / shift in the layout's broadcast shape [B, F?, L?, C].
template <Layout LAYOUT>
__device__ __forceinline__ long long modulation_row(int b, int l, int L, int C, int F) {
  if (LAYOUT == Layout::bc) return static_cast<long long>(b) * C;
  if (LAYOUT == Layout::blc) return (static_cast<long long>(b) * L + l) * C;
  return (static_cast<long long>(b) * F + l / (L / F)) * C;
}

template <typename T, typename S, Layout LAYOUT>
__global__ void modulate_reference(T* y, const T* x, const S* scale, const S* shift, int B, int L, int C, int F) {
  const int token = blockIdx.x, b = token / L, l = token % L;
  const long long row = static_cast<long long>(token) * C, mod = modulation_row<LAYOUT>(b, l, L, C, F);
  for (int c = threadIdx.x; c < C; c += blockDim.x)
    y[row + c] = T(float(x[row + c]) * (1.0f + float(scale[mod + c])) + float(shift[mod + c]));
}

template <Layout LAYOUT>
__global__ void modulate_oracle(double* y, const double* x, const double* scale, const double* shift, int B, int L, int C,
                                int F) {
  const int token = blockIdx.x, b = token / L, l = token % L;
  const long long row = static_cast<long long>(token) * C, mod = modulation_row<LAYOUT>(b, l, L, C, F);
  for (int c = threadIdx.x; c < C; c += blockDim.x) y[row + c] = x[row + c] * (1.0 + scale[mod + c]) + shift[mod + c];
}
