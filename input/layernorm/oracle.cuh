#pragma once
// LayerNorm oracle: the fp64 ground truth the reference is checked against on check_shapes.
//
//   y[r, c] = (x[r, c] - mean) / sqrt(var + eps) * w[c] + b[c]   (w = 1, b = 0 without affine)
//   mean = sum_c x[r, c] / cols,  var = sum_c (x[r, c] - mean)^2 / cols (biased)
//
// Independent of the reference on purpose: double precision throughout, a true division by the
// square root, no rounding to T (ako compares the kernels' T outputs with these doubles). One
// warp per row whose lanes stride over the columns and add their shares with a butterfly
// (coalesced: it also runs on the full benchmark shapes, every trial, as the precision check's
// yardstick). ako hands it double copies of x, weight and bias (the values the kernels read,
// converted exactly). Launch: grid = rows, block = 32.
template <bool AFFINE>
__global__ void layernorm_oracle(double* out, const double* x, const double* weight, const double* bias, int rows,
                                 int cols, float eps) {
  const long long row = blockIdx.x;
  if (row >= rows || blockDim.x != 32) return;
  const double* x_row = x + row * cols;
  double sum = 0.0;
  for (int c = threadIdx.x; c < cols; c += 32) sum += x_row[c];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const double mean = sum / cols;
  double sum_sq = 0.0;
  for (int c = threadIdx.x; c < cols; c += 32) sum_sq += (x_row[c] - mean) * (x_row[c] - mean);
  for (int offset = 16; offset > 0; offset /= 2) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, offset);
  const double stddev = sqrt(sum_sq / cols + static_cast<double>(eps));
  for (int c = threadIdx.x; c < cols; c += 32) {
    double y = (x_row[c] - mean) / stddev;
    if (AFFINE) y = y * weight[c] + bias[c];
    out[row * cols + c] = y;
  }
}
