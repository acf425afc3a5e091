#pragma once
// Fused QK-norm + RoPE oracle: the fp64 ground truth (tasks/README.md "Oracle"). The op of
// input/qknorm_rope/qknorm_rope.cuh in double, written independently: ako hands it double
// copies of q, k, the weights and the cache, the positions as they are. A warp per head (the
// sum of squares in lane order, then a shuffle tree), one block of 128 threads per token: it runs
// on every compare case's full shape. Launch: grid = N, block = 128.
template <typename IdT, bool NEOX>
__global__ void qknorm_rope_oracle(double* q, double* k, const double* q_weight, const double* k_weight,
                                   const double* cos_sin_cache, const IdT* pos, int N, int H, int D, int R,
                                   long long q_stride, long long k_stride, float eps) {
  const long long n = blockIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int half = R / 2;
  const double* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
  for (int hh = warp; hh < 2 * H; hh += warps) {
    double* x = hh < H ? q + n * q_stride + static_cast<long long>(hh) * D : k + n * k_stride + static_cast<long long>(hh - H) * D;
    const double* w = hh < H ? q_weight : k_weight;
    double sum = 0.0;
    for (int d = lane; d < D; d += 32) sum += x[d] * x[d];
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const double inv = 1.0 / sqrt(sum / D + static_cast<double>(eps));
    // Every lane has read its elements for the sum; the rotation reads others' (its pairs).
    __syncwarp();
    for (int i = lane; i < half; i += 32) {
      double* pa = NEOX ? x + i : x + 2 * i;
      double* pb = NEOX ? x + i + half : x + 2 * i + 1;
      const double a = *pa * inv * w[pa - x], b = *pb * inv * w[pb - x];
      *pa = a * row[i] - b * row[half + i];
      *pb = b * row[i] + a * row[half + i];
    }
    for (int d = R + lane; d < D; d += 32) x[d] = x[d] * inv * w[d];
    __syncwarp();
  }
}
