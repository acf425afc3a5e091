#pragma once
// RMSNorm oracle: the fp64 ground truth the reference is checked against on check_shapes.
//
//   y[r, c] = x[r, c] / sqrt(mean_c(x[r, :]^2) + eps) * w[c]   (w = 1 without a weight)
//
// Independent of the reference on purpose: double precision throughout, one thread per row,
// a plain sequential sum, no rounding to T (ako compares the reference's T output with these
// doubles under the task's tolerance). ako hands it double copies of x and weight (the values
// the reference read, converted exactly). Launch: grid = ceil_div(rows, 64), block = 64.
template <bool HAS_WEIGHT>
__global__ void rmsnorm_oracle(double* out, const double* x, const double* weight, int rows, int cols, float eps) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const double* x_row = x + row * cols;
  double sum_sq = 0.0;
  for (int c = 0; c < cols; ++c) sum_sq += x_row[c] * x_row[c];
  const double inv_rms = 1.0 / sqrt(sum_sq / cols + static_cast<double>(eps));
  for (int c = 0; c < cols; ++c) out[row * cols + c] = x_row[c] * inv_rms * (HAS_WEIGHT ? weight[c] : 1.0);
}
