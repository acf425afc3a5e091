#pragma once
// residual-gate + norm + scale/shift oracle: the fp64 ground truth of the reference on
// check_shapes. residual_out = residual + gate * x in double, rounded once to the case's dtype
// (the op stores it in T and normalises that stored value: SGLang's definition), then the
// norm_scale_shift oracle's row (input/norm_scale_shift/oracle.cuh: double, sequential sums,
// broadcast through the declared shapes, one warp per token). The gate broadcasts like scale
// and shift. Launch: grid = B * L, block = 32.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../norm_scale_shift/oracle.cuh"

enum class Dtype { bf16, fp16, fp32 };  // the case's dtype ({dtype}): where residual_out rounds

template <Dtype D>
__device__ double round_to(double v) {
  if (D == Dtype::bf16) return static_cast<double>(__bfloat162float(__double2bfloat16(v)));
  if (D == Dtype::fp16) return static_cast<double>(__half2float(__double2half(v)));
  return static_cast<double>(static_cast<float>(v));
}

template <Dtype D, Norm NORM, Layout MOD, Layout GATE, bool AFFINE>
__global__ void residual_gate_norm_scale_shift_oracle(double* y, double* residual_out, const double* residual,
                                                      const double* x, const double* gate, const double* weight,
                                                      const double* bias, const double* scale, const double* shift,
                                                      int B, int L, int C, int F, float eps) {
  using namespace nss_oracle_detail;
  const long long token = blockIdx.x;
  if (token >= static_cast<long long>(B) * L || blockDim.x != 32) return;
  const int b = static_cast<int>(token / L), l = static_cast<int>(token % L);
  const long long row = token * C;
  for (int c = threadIdx.x; c < C; c += 32) {
    const double g = GATE == Layout::none ? 1.0 : gate[broadcast_offset<GATE>(b, l, c, L, C, F)];
    residual_out[row + c] = round_to<D>(residual[row + c] + g * x[row + c]);
  }
  __syncwarp();   // the row's residual_out, written by every lane, is read back by every lane
  norm_scale_shift_oracle_row<NORM, MOD, AFFINE>(y + row, residual_out + row, weight, bias, scale, shift, b, l, L, C, F,
                                                 eps);
}
