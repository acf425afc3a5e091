#pragma once
// RMSNorm oracle: the fp64 ground truth the reference is checked against on check_shapes and
// the solution's precision is judged against on every compare case (tasks/README.md).
//
//   y[r, c] = x[r, c] / sqrt(mean_c(x[r, :]^2) + eps) * w[c]   (w = 1 without a weight)
//
// Independent of the reference on purpose: double precision throughout, no rounding to T (ako
// compares the kernels' T outputs with these doubles), one warp per row whose lanes stride over
// the columns (coalesced: it also runs on the largest benchmark shapes, once per trial) and
// add their shares with a butterfly. ako hands it double copies of x and weight (the values the
// kernels read, converted exactly). Four warps (rows) per block: blocks of one warp would cap an
// SM at 32 warps, half of what keeps enough loads in flight.
// Launch: grid = ceil_div(rows, 4), block = 128.
template <bool HAS_WEIGHT>
__global__ void rmsnorm_oracle(double* out, const double* x, const double* weight, int rows, int cols, float eps) {
  if (blockDim.x != 128) return;
  const long long row = blockIdx.x * 4ll + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;   // whole warps: the shuffles below see all 32 lanes
  const double* x_row = x + row * cols;
  double sum_sq = 0.0;
  for (int c = lane; c < cols; c += 32) sum_sq += x_row[c] * x_row[c];
  for (int offset = 16; offset > 0; offset /= 2) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, offset);
  const double inv_rms = 1.0 / sqrt(sum_sq / cols + static_cast<double>(eps));
  for (int c = lane; c < cols; c += 32) out[row * cols + c] = x_row[c] * inv_rms * (HAS_WEIGHT ? weight[c] : 1.0);
}
