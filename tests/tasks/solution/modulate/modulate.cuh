#pragma once
// Solution of the modulation capability task: the reference's math, block size tunable.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Layout { bc, blc, bf1c };

template <typename T, typename S, Layout LAYOUT, int BLOCK>
__global__ void __launch_bounds__(BLOCK) modulate_kernel(T* y, const T* x, const S* scale, const S* shift, int B, int L, int C, int F) {
  const int token = blockIdx.x, b = token / L, l = token % L;
  const long long row = static_cast<long long>(token) * C;
  const long long mod = LAYOUT == Layout::bc    ? static_cast<long long>(b) * C
                        : LAYOUT == Layout::blc ? row
                                                : (static_cast<long long>(b) * F + l / (L / F)) * C;
  for (int c = threadIdx.x; c < C; c += BLOCK)
    y[row + c] = T(float(x[row + c]) * (1.0f + float(scale[mod + c])) + float(shift[mod + c]));
}
