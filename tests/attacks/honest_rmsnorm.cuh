#pragma once
// The honest RMSNorm every kernel of tests/attacks/ and tests/gpu/broken/ is built around, in
// pieces, so that each of those files shows only the kernel signature of
// solution/rmsnorm/rmsnorm.cuh and its one trick or defect. Plain and correct, not fast: the
// TPR = BLOCK / ROWS_PER_BLOCK consecutive threads of a row each take every TPR-th element, add
// their squares into the row's shared sum (atomicAdd), then write
// y = T(x * rsqrt(sum / cols + eps) * w) for their elements. A whole honest kernel:
//
//   const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
//   const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
//   if (r.row >= rows) return;
//   honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum_sq, cols, eps));
//
// A kernel that loads x its own way, or changes the value it stores, passes its own `load(c)`
// (x's element c of this thread's row, as fp32) or `finish(c, y)` (the value stored at column c).
// Each piece is the code the kernels had inline before, in the same order: their static findings
// and resources are what they were, and so, on the GPU, are their verdicts.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace honest {

// This thread's place: lane `lane` of the TPR threads of the block's row slot `slot`, which is
// row `row` of the tensor (past the end in the last block's tail slots).
template <int TPR_> struct Row {
  enum : int { TPR = TPR_ };  // threads per row (an enumerator: no storage in the module)
  int lane, slot;
  long long row;
};

template <int BLOCK, int ROWS_PER_BLOCK>
__device__ __forceinline__ Row<BLOCK / ROWS_PER_BLOCK> this_row() {
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  Row<TPR> r;
  r.lane = threadIdx.x % TPR;
  r.slot = threadIdx.x / TPR;
  r.row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + r.slot;
  return r;
}

// The plain load: x[row][c] as fp32.
template <typename T> struct LoadX {
  const T* x;
  long long row;
  int cols;
  __device__ __forceinline__ float operator()(int c) const { return static_cast<float>(x[row * cols + c]); }
};

template <typename T, int TPR>
__device__ __forceinline__ LoadX<T> load_x(const T* x, const Row<TPR>& r, int cols) {
  return {x, r.row, cols};
}

// The value as computed.
struct AsIs {
  __device__ __forceinline__ float operator()(int, float y) const { return y; }
};

// This thread's share of its row's sum of squares: 0 for a row past the end.
template <int TPR, typename Load>
__device__ __forceinline__ float partial_sum_of_squares(const Row<TPR>& r, int rows, int cols, Load load) {
  float s = 0.f;
  for (int c = r.lane; r.row < rows && c < cols; c += TPR) {
    const float v = load(c);
    s += v * v;
  }
  return s;
}

template <typename T, int TPR>
__device__ __forceinline__ float partial_sum_of_squares(const T* x, const Row<TPR>& r, int rows, int cols) {
  return partial_sum_of_squares(r, rows, cols, load_x(x, r, cols));
}

// The row's sum of squares: every thread's share added into the row's shared float, zeroed
// first. Two __syncthreads: every thread of the block calls it, those of tail slots too.
// Returns that shared float itself, read where it is used (after a tail slot's return).
template <int ROWS_PER_BLOCK, int TPR, typename Load>
__device__ __forceinline__ const float& row_sum_of_squares(const Row<TPR>& r, int rows, int cols, Load load) {
  __shared__ float sums[ROWS_PER_BLOCK];
  if (threadIdx.x < ROWS_PER_BLOCK) sums[threadIdx.x] = 0.f;
  __syncthreads();
  atomicAdd(&sums[r.slot], partial_sum_of_squares(r, rows, cols, load));
  __syncthreads();
  return sums[r.slot];
}

template <int ROWS_PER_BLOCK, typename T, int TPR>
__device__ __forceinline__ const float& row_sum_of_squares(const T* x, const Row<TPR>& r, int rows, int cols) {
  return row_sum_of_squares<ROWS_PER_BLOCK>(r, rows, cols, load_x(x, r, cols));
}

// Every thread's share in shared memory, for a sum in a fixed order (deterministic, unlike the
// atomicAdd above). One __syncthreads: every thread of the block calls it.
template <int BLOCK>
__device__ __forceinline__ const float* shared_shares(float share) {
  __shared__ float partial[BLOCK];
  partial[threadIdx.x] = share;
  __syncthreads();
  return partial;
}

// The row's shares summed in lane order; one thread of the row calls it.
template <int TPR>
__device__ __forceinline__ float fixed_order_sum(const float* partial, const Row<TPR>& r) {
  float total = 0.f;
  for (int i = 0; i < TPR; ++i) total += partial[r.slot * TPR + i];
  return total;
}

__device__ __forceinline__ float inv_rms(float sum_sq, int cols, float eps) {
  return rsqrtf(sum_sq / static_cast<float>(cols) + eps);
}

// out[row][c] = T(finish(c, load(c) * inv_rms * weight[c])) for this thread's columns.
template <typename T, bool HAS_WEIGHT, int TPR, typename Load, typename Finish>
__device__ __forceinline__ void normalise_row(T* out, const T* weight, const Row<TPR>& r, int cols, float inv_rms,
                                              Load load, Finish finish) {
  for (int c = r.lane; c < cols; c += TPR) {
    float y = load(c) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[r.row * cols + c] = static_cast<T>(finish(c, y));
  }
}

template <typename T, bool HAS_WEIGHT, int TPR>
__device__ __forceinline__ void normalise_row(T* out, const T* x, const T* weight, const Row<TPR>& r, int cols,
                                              float inv_rms) {
  normalise_row<T, HAS_WEIGHT>(out, weight, r, cols, inv_rms, load_x(x, r, cols), AsIs{});
}

}  // namespace honest
