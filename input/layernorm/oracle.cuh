#pragma once
// LayerNorm oracle: the fp64 ground truth the reference is checked against on check_shapes.
//
//   y[r, c] = (x[r, c] - mean) / sqrt(var + eps) * w[c] + b[c]   (w = 1, b = 0 without affine)
//   mean = sum_c x[r, c] / cols,  var = sum_c (x[r, c] - mean)^2 / cols (biased)
//
// Independent of the reference on purpose: double precision throughout, one thread per row,
// plain sequential sums, a true division by the square root, no rounding to T (ako compares the
// reference's T output with these doubles under the task's tolerance). ako hands it double
// copies of x, weight and bias (the values the reference read, converted exactly).
// Launch: grid = ceil_div(rows, 64), block = 64.
template <bool AFFINE>
__global__ void layernorm_oracle(double* out, const double* x, const double* weight, const double* bias, int rows,
                                 int cols, float eps) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const double* x_row = x + row * cols;
  double sum = 0.0;
  for (int c = 0; c < cols; ++c) sum += x_row[c];
  const double mean = sum / cols;
  double sum_sq = 0.0;
  for (int c = 0; c < cols; ++c) sum_sq += (x_row[c] - mean) * (x_row[c] - mean);
  const double stddev = sqrt(sum_sq / cols + static_cast<double>(eps));
  for (int c = 0; c < cols; ++c) {
    double y = (x_row[c] - mean) / stddev;
    if (AFFINE) y = y * weight[c] + bias[c];
    out[row * cols + c] = y;
  }
}
