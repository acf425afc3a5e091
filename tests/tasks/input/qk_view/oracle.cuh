#pragma once
// fp64 oracle of the view capability task: one thread per (token, head, q-or-k).
template <int D>
__global__ void qknorm_oracle(double* q, double* k, const double* q_w, const double* k_w, int N, int H, int stride, float eps) {
  double* head = (blockIdx.z == 0 ? q : k) + static_cast<long long>(blockIdx.x) * stride + blockIdx.y * D;
  const double* w = blockIdx.z == 0 ? q_w : k_w;
  double sum = 0.0;
  for (int d = 0; d < D; ++d) sum += head[d] * head[d];
  const double inv = 1.0 / sqrt(sum / D + static_cast<double>(eps));
  for (int d = 0; d < D; ++d) head[d] = head[d] * inv * w[d];
}
