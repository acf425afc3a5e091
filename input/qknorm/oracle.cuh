#pragma once
// fp64 oracle of the qknorm task: the reference's op in double, one warp per row (coalesced; it
// runs on the full shapes every validation trial), grid (N, rows per token), 64-bit offsets.
template <int D, bool ACROSS>
__global__ void qknorm_oracle(double* q, double* k, const double* q_weight, const double* k_weight, int N, int Hq,
                              int Hk, long long stride, float eps) {
  const int rows_q = ACROSS ? 1 : Hq;
  const int r = blockIdx.y;
  const bool is_q = r < rows_q;
  const int len = ACROSS ? (is_q ? Hq : Hk) * D : D;
  const int head = ACROSS ? 0 : (is_q ? r : r - rows_q);
  double* row = (is_q ? q : k) + static_cast<long long>(blockIdx.x) * stride + static_cast<long long>(head) * D;
  const double* w = is_q ? q_weight : k_weight;
  double sum = 0.0;
  for (int i = threadIdx.x; i < len; i += 32) sum += row[i] * row[i];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const double inv = 1.0 / sqrt(sum / len + static_cast<double>(eps));
  for (int i = threadIdx.x; i < len; i += 32) row[i] = row[i] * inv * w[i];
}
