#pragma once
// RoPE oracle: the fp64 ground truth (tasks/README.md "Oracle"). The same rotation as
// input/rope/rope.cuh, written independently in double: ako hands it double copies of q, k and
// the cache (the values the reference read, converted exactly) and the positions as they are.
//
//   interleaved: (a, b) = (x[2i], x[2i + 1]);  NeoX: (a, b) = (x[i], x[i + R/2])
//   a' = a * cos_sin_cache[pos, i] - b * cos_sin_cache[pos, R/2 + i]
//   b' = b * cos_sin_cache[pos, i] + a * cos_sin_cache[pos, R/2 + i]
//
// It runs on every compare case's full shape, so it reads coalesced: one block of 128 threads
// per token, consecutive threads on consecutive pairs of one head. Launch: grid = N, block = 128.
template <typename IdT, bool NEOX>
__global__ void rope_oracle(double* q, double* k, const double* cos_sin_cache, const IdT* pos, int N, int H, int D,
                            int R, long long q_stride, long long k_stride) {
  const long long n = blockIdx.x;
  const int half = R / 2;
  const long long p_row = static_cast<long long>(pos[n]);
  for (int h = 0; h < 2 * H; ++h) {
    double* x = h < H ? q + n * q_stride + static_cast<long long>(h) * D : k + n * k_stride + static_cast<long long>(h - H) * D;
    for (int i = threadIdx.x; i < half; i += blockDim.x) {
      const double c = cos_sin_cache[p_row * R + i], s = cos_sin_cache[p_row * R + half + i];
      double* a = NEOX ? x + i : x + 2 * i;
      double* b = NEOX ? x + i + half : x + 2 * i + 1;
      const double a0 = *a, b0 = *b;
      *a = a0 * c - b0 * s;
      *b = b0 * c + a0 * s;
    }
  }
}
