#pragma once
// Gated activation oracle: the fp64 ground truth the reference is checked against on
// check_shapes and the solution's precision is judged by on every compare case.
//
//   gelu_tanh_and_mul  out = gelu_tanh(x[:, :d]) * x[:, d:]      gelu_tanh(v) = v / 2 (1 + tanh(k (v + 0.044715 v^3)))
//   silu_and_mul       out = silu(x[:, :d]) * x[:, d:]           silu(v) = v / (1 + exp(-v))
//   geglu              out = x[:, :d] * gelu_erf(x[:, d:])       gelu_erf(v) = v / 2 (1 + erf(v / sqrt(2)))
//   gelu_tanh          out = gelu_tanh(x)                        x [rows, d]
//
// Independent of the reference on purpose: double precision, k = sqrt(2 / pi) computed rather
// than written as a decimal, no rounding to T (ako compares the reference's T output with these
// doubles). 64-bit indices (hunyuan-720p's x has 1.46e9 elements). One block of 256 threads per
// row, reading coalesced: it runs on every full compare shape once per validation trial.
// Launch: grid = rows, block = 256.
enum class Act { gelu_tanh_and_mul, silu_and_mul, geglu, gelu_tanh };

namespace gated_act_oracle_detail {

__device__ __forceinline__ double gelu_tanh(double v) {
  const double k = sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v)));
}
__device__ __forceinline__ double silu(double v) { return v / (1.0 + exp(-v)); }
__device__ __forceinline__ double gelu_erf(double v) { return 0.5 * v * (1.0 + erf(v / sqrt(2.0))); }

}  // namespace gated_act_oracle_detail

template <Act ACT>
__global__ void gated_act_oracle(double* out, const double* x, int rows, int cols) {
  using namespace gated_act_oracle_detail;
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const long long width = ACT == Act::gelu_tanh ? cols : 2LL * cols;
  const double* x_row = x + row * width;
  double* out_row = out + row * cols;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    const double a = x_row[c];
    double y;
    if (ACT == Act::gelu_tanh_and_mul) y = gelu_tanh(a) * x_row[cols + c];
    else if (ACT == Act::silu_and_mul) y = silu(a) * x_row[cols + c];
    else if (ACT == Act::geglu) y = a * gelu_erf(x_row[cols + c]);
    else y = gelu_tanh(a);
    out_row[c] = y;
  }
}
