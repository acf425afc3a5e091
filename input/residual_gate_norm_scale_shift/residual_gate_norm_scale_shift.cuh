#pragma once
// residual-gate + norm + scale/shift reference (SGLang's fused_scale_residual_norm_scale_shift):
//
//   residual_out = T( residual + gate * x )          (gate absent: 1)
//   y            = T( norm(residual_out) * (1 + scale) + shift )
//
// Both outputs, as SGLang returns them (y, residual_out). residual_out is stored in T and the
// norm runs on that rounded value, as SGLang's kernel does (it keeps the rounded residual in
// an x-typed fragment and normalises it). gate, scale and shift broadcast from their layouts;
// everything is computed in fp32. The norm and modulation of one token are the norm_scale_shift
// reference's (input/norm_scale_shift/norm_scale_shift.cuh). Plain on purpose: one block of 256
// threads per token, any C. Launch: grid = B * L, block = 256.
#include "../norm_scale_shift/norm_scale_shift.cuh"

template <typename T, typename S, Norm NORM, Layout MOD, Layout GATE, bool AFFINE>
__global__ void __launch_bounds__(256)
residual_gate_norm_scale_shift_reference(T* y, T* residual_out, const T* residual, const T* x, const S* gate,
                                         const T* weight, const T* bias, const S* scale, const S* shift, int B, int L,
                                         int C, int F, float eps) {
  using namespace nss_reference_detail;
  if (blockDim.x != kBlock) __trap();  // the tree reduction relies on it
  const int token = blockIdx.x, b = token / L, l = token % L;
  const long long row = static_cast<long long>(token) * C;
  for (int c = threadIdx.x; c < C; c += kBlock) {
    const float g = GATE == Layout::none ? 1.0f : float(gate[modulation_offset<GATE>(b, l, c, L, C, F)]);
    residual_out[row + c] = T(float(residual[row + c]) + g * float(x[row + c]));
  }
  // Each thread reads back only the elements it stored (same c stride): no barrier needed.
  norm_scale_shift_row<T, S, NORM, MOD, AFFINE>(y + row, residual_out + row, weight, bias, scale, shift, b, l, L, C,
                                                F, eps);
}
