#pragma once
// Reference of scale_shift: y = x * (1 + scale) + shift over x [B, L, C], scale and shift in
// one of the broadcast layouts of layout.cuh, in x's dtype T or in S = float (Wan keeps its
// modulation in fp32). As SGLang's CuTe DSL and CUDA paths compute it: every operand converted
// to fp32, fmaf(x, 1 + scale, shift), one rounding to T at the store (context/scale_shift.md).
// Plain on purpose: one block per token, the block's threads stride over C.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "layout.cuh"

template <typename T, typename S, Layout LAYOUT>
__global__ void scale_shift_reference(T* y, const T* x, const S* scale, const S* shift, int B, int L, int C, int F) {
  const int token = blockIdx.x, b = token / L, l = token % L;
  const long long row = static_cast<long long>(token) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const long long m = modulation_index<LAYOUT>(b, l, c, L, C, F);
    y[row + c] = T(fmaf(float(x[row + c]), 1.0f + float(scale[m]), float(shift[m])));
  }
}
