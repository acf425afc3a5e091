#pragma once
// A deliberately wrong qknorm solution (tests/gpu/qknorm_test.cpp): k's rows are scaled by
// q's weight, the slip of a kernel written for one tensor and reused for two. The norm itself
// is right (fp32, one rounding) and q comes out exact, so only separate weights in the task's
// inputs can catch it: the run must call every case incorrect, naming 'k'.
// The solution's template and launch (grid = ceil_div(rows, BLOCK / G * R), block = BLOCK, with
// G, R = GROUP, ROWS per head and AGROUP, AROWS across heads), so ako launches it in the
// solution's place; plain code: each warp of a block takes the block's rows in turn.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, int HEAD_DIM, bool ACROSS, int VEC, int BLOCK, int GROUP, int ROWS, int AGROUP, int AROWS,
          int CHUNKS, int STORE_CS = 1>
__global__ void qknorm_kernel(T* q, T* k, const T* q_weight, const T* /*k_weight*/, int N, int Hq, int Hk,
                              long long stride, float eps) {
  const int nq = ACROSS ? 1 : Hq, rows_per_token = ACROSS ? 2 : Hq + Hk;
  constexpr long long kRowsPerBlock = ACROSS ? static_cast<long long>(BLOCK / AGROUP) * AROWS
                                             : static_cast<long long>(BLOCK / GROUP) * ROWS;
  const long long total = static_cast<long long>(N) * rows_per_token;
  const long long first = blockIdx.x * kRowsPerBlock;
  const long long end = first + kRowsPerBlock < total ? first + kRowsPerBlock : total;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (long long g = first + warp; g < end; g += BLOCK / 32) {
    const long long token = g / rows_per_token;
    const int r = static_cast<int>(g % rows_per_token);
    const bool is_q = r < nq;
    const int len = ACROSS ? (is_q ? Hq : Hk) * HEAD_DIM : HEAD_DIM;
    T* row = (is_q ? q : k) + token * stride + static_cast<long long>(is_q ? r : r - nq) * HEAD_DIM;
    const T* w = q_weight;  // the bug: k_weight is never read
    float sum = 0.f;
    for (int i = lane; i < len; i += 32) sum += static_cast<float>(row[i]) * static_cast<float>(row[i]);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float inv = rsqrtf(sum / static_cast<float>(len) + eps);
    for (int i = lane; i < len; i += 32) row[i] = static_cast<T>(static_cast<float>(row[i]) * inv * static_cast<float>(w[i]));
  }
}
