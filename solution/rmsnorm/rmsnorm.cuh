#pragma once
// RMSNorm, the fast candidate. Same math as input/rmsnorm/rmsnorm.cuh (fp32 accumulation,
// x * rsqrt(mean(x^2) + eps) * w, one rounding), so the two agree to within an ulp.
//
//   template <T, HAS_WEIGHT, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS>
//   grid = ceil_div(rows, ROWS_PER_BLOCK), block = BLOCK, no dynamic shared memory.
//
// Layout of the work: a block holds ROWS_PER_BLOCK rows; each row gets TPR = BLOCK /
// ROWS_PER_BLOCK consecutive threads (a power of two, so a row never straddles a warp
// unevenly). A thread moves VEC elements per access (VEC = 8: 16-byte loads and stores)
// and owns chunks lane, lane + TPR, lane + 2*TPR, ... of its row.
//
// Why it is fast on a memory-bound op:
// - A row of at most TPR * VEC * CHUNKS elements is loaded up front, all of it before the
//   reduction, and stays in registers (packed 16-bit pairs) for the normalise pass: x is
//   read from DRAM once, and every thread has up to CHUNKS independent 16-byte loads (and
//   as many weight loads) in flight.
// - Longer rows stay correct on a second path that streams the row twice, CHUNKS loads at
//   a time (the second pass mostly from L2). Which path runs depends on cols only.
// - Reductions are warp shuffles; a row wider than a warp adds one shared-memory exchange
//   and one __syncthreads (no second barrier: each block runs its rows once).
// - Output stores are streaming (st.global.cs): nothing reads them again in this kernel.
// Requirements: cols % VEC == 0, x / out / weight aligned to VEC * sizeof(T) bytes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace rmsnorm_detail {

// 16-bit float <-> fp32 on packed pairs: element 2i is the low half of word i.
template <typename T> struct Codec;

template <> struct Codec<__nv_bfloat16> {
  // bf16 -> fp32 is exact and is just the 16 bits moved to the top.
  static __device__ __forceinline__ float lo(unsigned w) { return __uint_as_float(w << 16); }
  static __device__ __forceinline__ float hi(unsigned w) { return __uint_as_float(w & 0xffff0000u); }
  static __device__ __forceinline__ unsigned pack(float lo, float hi) {
    unsigned w;  // one round-to-nearest-even conversion of both halves
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
};

template <> struct Codec<__half> {
  static __device__ __forceinline__ float lo(unsigned w) { return __half2float(__ushort_as_half(static_cast<unsigned short>(w))); }
  static __device__ __forceinline__ float hi(unsigned w) { return __half2float(__ushort_as_half(static_cast<unsigned short>(w >> 16))); }
  static __device__ __forceinline__ unsigned pack(float lo, float hi) {
    unsigned w;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
};

// The register image of VEC consecutive 16-bit elements, moved as one VEC*2-byte access.
// VEC == 1 keeps its element in the low half of w[0].
template <int VEC> struct Chunk {
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC must be 1, 2, 4 or 8");
  static constexpr int kWords = VEC >= 2 ? VEC / 2 : 1;
  unsigned w[kWords];
};

// Loads through the read-only path (x and weight are never written by this kernel).
template <int VEC> __device__ __forceinline__ Chunk<VEC> load_chunk(const void* p) {
  Chunk<VEC> c;
  if constexpr (VEC == 8) {
    const uint4 r = __ldg(static_cast<const uint4*>(p));
    c.w[0] = r.x; c.w[1] = r.y; c.w[2] = r.z; c.w[3] = r.w;
  } else if constexpr (VEC == 4) {
    const uint2 r = __ldg(static_cast<const uint2*>(p));
    c.w[0] = r.x; c.w[1] = r.y;
  } else if constexpr (VEC == 2) {
    c.w[0] = __ldg(static_cast<const unsigned*>(p));
  } else {
    c.w[0] = __ldg(static_cast<const unsigned short*>(p));
  }
  return c;
}

// Streaming (evict-first) stores: the output is not read again here.
template <int VEC> __device__ __forceinline__ void store_chunk(void* p, const Chunk<VEC>& c) {
  if constexpr (VEC == 8) {
    __stcs(static_cast<uint4*>(p), make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]));
  } else if constexpr (VEC == 4) {
    __stcs(static_cast<uint2*>(p), make_uint2(c.w[0], c.w[1]));
  } else if constexpr (VEC == 2) {
    __stcs(static_cast<unsigned*>(p), c.w[0]);
  } else {
    __stcs(static_cast<unsigned short*>(p), static_cast<unsigned short>(c.w[0]));
  }
}

template <typename T, int VEC> __device__ __forceinline__ Chunk<VEC> zero_chunk() {
  Chunk<VEC> c;
#pragma unroll
  for (int i = 0; i < Chunk<VEC>::kWords; ++i) c.w[i] = 0u;  // +0.0 in bf16 and fp16
  return c;
}

template <typename T, int VEC> __device__ __forceinline__ float sum_of_squares(const Chunk<VEC>& c) {
  float s = 0.f;
  if constexpr (VEC == 1) {
    const float v = Codec<T>::lo(c.w[0]);
    s = v * v;
  } else {
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i) {
      const float a = Codec<T>::lo(c.w[i]), b = Codec<T>::hi(c.w[i]);
      s += a * a;
      s += b * b;
    }
  }
  return s;
}

// y = T(x * inv_rms * w): the reference's operations in the reference's order.
template <typename T, bool HAS_WEIGHT, int VEC>
__device__ __forceinline__ Chunk<VEC> normalise(const Chunk<VEC>& x, const Chunk<VEC>& w, float inv_rms) {
  Chunk<VEC> y;
  if constexpr (VEC == 1) {
    float v = Codec<T>::lo(x.w[0]) * inv_rms;
    if constexpr (HAS_WEIGHT) v *= Codec<T>::lo(w.w[0]);
    y.w[0] = Codec<T>::pack(v, 0.f) & 0xffffu;
  } else {
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i) {
      float a = Codec<T>::lo(x.w[i]) * inv_rms, b = Codec<T>::hi(x.w[i]) * inv_rms;
      if constexpr (HAS_WEIGHT) {
        a *= Codec<T>::lo(w.w[i]);
        b *= Codec<T>::hi(w.w[i]);
      }
      y.w[i] = Codec<T>::pack(a, b);
    }
  }
  return y;
}

// 1/c within an ulp, without IEEE division: its slow path is a subroutine call, and the
// calling convention makes ptxas spill the cached chunks around it. The mean differs from
// the reference's sum / cols by at most an fp32 ulp, far below a bf16 / fp16 ulp.
__device__ __forceinline__ float reciprocal(float c) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(c));
  return fmaf(fmaf(-c, r, 1.0f), r, r);  // one Newton step
}

// Sum over the TPR threads of a row; every thread of the row gets the same bits.
// Must be reached by every thread of the block (tail rows included).
template <int TPR, int BLOCK>
__device__ __forceinline__ float row_sum(float v) {
  constexpr int kLanes = TPR < 32 ? TPR : 32;
  // xor offsets below kLanes stay inside an aligned group of kLanes lanes: the row's.
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if constexpr (TPR > 32) {
    constexpr int kWarpsPerRow = TPR / 32;
    __shared__ float warp_sums[BLOCK / 32];  // warps of row r: r * kWarpsPerRow ...
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    const float* mine = warp_sums + (threadIdx.x / TPR) * kWarpsPerRow;
    v = 0.f;
#pragma unroll
    for (int i = 0; i < kWarpsPerRow; ++i) v += mine[i];  // same order in every thread
  }
  return v;
}

// Row in registers: every chunk of the row is one of this thread's CHUNKS chunks.
template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int TPR, int CHUNKS>
__device__ __forceinline__ void cached_row(T* out_row, const T* x_row, const T* weight, bool row_ok, int lane,
                                           int n_chunks, float inv_cols, float eps) {
  // 1. Issue every load before any arithmetic on them.
  Chunk<VEC> xs[CHUNKS], ws[CHUNKS];
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = lane + k * TPR;
    const bool ok = row_ok && c < n_chunks;
    xs[k] = ok ? load_chunk<VEC>(x_row + c * VEC) : zero_chunk<T, VEC>();
    if constexpr (HAS_WEIGHT) ws[k] = ok ? load_chunk<VEC>(weight + c * VEC) : zero_chunk<T, VEC>();
  }
  // 2. Sum of squares (zero chunks add nothing), reduced over the row.
  float sum_sq = 0.f;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) sum_sq += sum_of_squares<T, VEC>(xs[k]);
  sum_sq = row_sum<TPR, BLOCK>(sum_sq);
  const float inv_rms = rsqrtf(sum_sq * inv_cols + eps);
  // 3. Normalise from registers and store.
  if (!row_ok) return;  // after the barrier: safe
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = lane + k * TPR;
    if (c < n_chunks) store_chunk<VEC>(out_row + c * VEC, normalise<T, HAS_WEIGHT, VEC>(xs[k], ws[k], inv_rms));
  }
}

// Row too long for the registers: two passes over x, CHUNKS loads in flight per step; the
// second pass mostly hits L2. Correct for any length; the configs keep rows off this path.
template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int TPR, int CHUNKS>
__device__ __forceinline__ void streamed_row(T* out_row, const T* x_row, const T* weight, bool row_ok, int lane,
                                             int n_chunks, float inv_cols, float eps) {
  float sum_sq = 0.f;
  for (int base = lane; row_ok && base < n_chunks; base += CHUNKS * TPR) {
    Chunk<VEC> xs[CHUNKS];
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = base + k * TPR;
      xs[k] = c < n_chunks ? load_chunk<VEC>(x_row + c * VEC) : zero_chunk<T, VEC>();
    }
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) sum_sq += sum_of_squares<T, VEC>(xs[k]);
  }
  sum_sq = row_sum<TPR, BLOCK>(sum_sq);
  const float inv_rms = rsqrtf(sum_sq * inv_cols + eps);
  if (!row_ok) return;  // after the barrier: safe
  for (int base = lane; base < n_chunks; base += CHUNKS * TPR) {
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = base + k * TPR;
      if (c >= n_chunks) break;
      Chunk<VEC> w;
      if constexpr (HAS_WEIGHT) w = load_chunk<VEC>(weight + c * VEC);
      store_chunk<VEC>(out_row + c * VEC, normalise<T, HAS_WEIGHT, VEC>(load_chunk<VEC>(x_row + c * VEC), w, inv_rms));
    }
  }
}

}  // namespace rmsnorm_detail

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  using namespace rmsnorm_detail;
  static_assert(sizeof(T) == 2, "bf16 / fp16 only");
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
  static_assert(BLOCK % ROWS_PER_BLOCK == 0, "BLOCK must split evenly into rows");
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;  // threads per row
  static_assert(TPR > 0 && (TPR & (TPR - 1)) == 0, "threads per row must be a power of two");
  static_assert(CHUNKS >= 1, "CHUNKS >= 1");

  const int lane = threadIdx.x % TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + threadIdx.x / TPR;
  // Tail rows of the last block touch no memory but still take part in the row reduction's
  // barrier, so nobody leaves early.
  const bool row_ok = row < rows;
  const int n_chunks = cols / VEC;
  const float inv_cols = reciprocal(static_cast<float>(cols));
  T* out_row = out + row * cols;
  const T* x_row = x + row * cols;
  // The same branch for the whole grid (it depends on cols only), so the barriers inside
  // are reached by every thread of a block.
  if (n_chunks <= CHUNKS * TPR)
    cached_row<T, HAS_WEIGHT, BLOCK, VEC, TPR, CHUNKS>(out_row, x_row, weight, row_ok, lane, n_chunks, inv_cols, eps);
  else
    streamed_row<T, HAS_WEIGHT, BLOCK, VEC, TPR, CHUNKS>(out_row, x_row, weight, row_ok, lane, n_chunks, inv_cols, eps);
}
