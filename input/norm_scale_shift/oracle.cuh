#pragma once
// norm + scale/shift oracle: the fp64 ground truth the reference is checked against on
// check_shapes and the yardstick of the precision check on the full shapes. Written apart from
// the reference on purpose: double precision, and the broadcast taken from the buffer's declared
// shape [B?, F?, L?, C?] (tasks/norm_scale_shift/task.json) through strides rather than the
// reference's per-layout offsets. One warp per token whose lanes stride over the channels and
// add their shares with a butterfly (coalesced: it runs on the full shapes every trial). No
// rounding to T: ako compares the kernels' T outputs with these doubles.
// Launch: grid = B * L, block = 32.

enum class Norm { layer, rms };
enum class Layout { none, scalar, c, bc, lc, blc, bf1c };

namespace nss_oracle_detail {

// Element (b, l, c) of a tensor of shape [B or 1, F or 1, L or 1, C or 1] (row-major), the
// extents each layout declares; frame f = l / (L / F).
template <Layout M>
__device__ long long broadcast_offset(int b, int l, int c, int L, int C, int F) {
  const bool has_b = M == Layout::bc || M == Layout::blc || M == Layout::bf1c;
  const bool has_f = M == Layout::bf1c;
  const bool has_l = M == Layout::lc || M == Layout::blc;
  const bool has_c = M != Layout::scalar;
  const long long ec = has_c ? C : 1, el = has_l ? L : 1, ef = has_f ? F : 1;
  const long long f = l / (L / F);
  return (has_b ? b : 0) * ef * el * ec + (has_f ? f : 0) * el * ec + (has_l ? l : 0) * ec + (has_c ? c : 0);
}

}  // namespace nss_oracle_detail

namespace nss_oracle_detail {
__device__ __forceinline__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
}  // namespace nss_oracle_detail

// One token, by the 32 lanes of a warp: y_row = norm(in_row) * (1 + scale) + shift. Shared with
// the residual-gate oracle.
template <Norm NORM, Layout MOD, bool AFFINE>
__device__ void norm_scale_shift_oracle_row(double* y_row, const double* in_row, const double* weight,
                                            const double* bias, const double* scale, const double* shift, int b, int l,
                                            int L, int C, int F, float eps) {
  using namespace nss_oracle_detail;
  const int lane = threadIdx.x % 32;
  double mean = 0.0;
  if (NORM == Norm::layer) {
    for (int c = lane; c < C; c += 32) mean += in_row[c];
    mean = warp_sum(mean) / C;
  }
  double var = 0.0;  // E[(x - mean)^2] (layer) or E[x^2] (rms)
  for (int c = lane; c < C; c += 32) var += (in_row[c] - mean) * (in_row[c] - mean);
  var = warp_sum(var) / C;
  const double inv = 1.0 / sqrt(var + static_cast<double>(eps));
  for (int c = lane; c < C; c += 32) {
    double n = (in_row[c] - mean) * inv;
    if (AFFINE) n = NORM == Norm::layer ? n * weight[c] + bias[c] : n * weight[c];
    const long long m = broadcast_offset<MOD>(b, l, c, L, C, F);
    y_row[c] = n * (1.0 + scale[m]) + shift[m];
  }
}

template <Norm NORM, Layout MOD, bool AFFINE>
__global__ void norm_scale_shift_oracle(double* y, const double* x, const double* weight, const double* bias,
                                        const double* scale, const double* shift, int B, int L, int C, int F,
                                        float eps) {
  const long long token = blockIdx.x;
  if (token >= static_cast<long long>(B) * L || blockDim.x != 32) return;
  norm_scale_shift_oracle_row<NORM, MOD, AFFINE>(y + token * C, x + token * C, weight, bias, scale, shift,
                                                 static_cast<int>(token / L), static_cast<int>(token % L), L, C, F,
                                                 eps);
}
