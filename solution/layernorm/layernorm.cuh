#pragma once
// LayerNorm, the fast candidate. Same math as input/layernorm/layernorm.cuh: fp32 statistics,
// the mean, then the biased variance around it (two passes, not E[x^2] - E[x]^2), then
// (x - mean) * rsqrt(var + eps) [* w + b] rounded once to T; so the two agree to within an ulp.
//
//   template <T, AFFINE, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS>
//   grid = ceil_div(rows, ROWS_PER_BLOCK), block = BLOCK, no dynamic shared memory.
//
// Layout of the work: a block holds ROWS_PER_BLOCK rows; each row gets TPR = BLOCK /
// ROWS_PER_BLOCK consecutive threads (a power of two, so a row never straddles a warp
// unevenly). A thread moves VEC elements per chunk (VEC = 8: one 16-byte access for bf16 /
// fp16, two for fp32) and owns chunks lane, lane + TPR, lane + 2*TPR, ... of its row.
//
// Why it is fast on a memory-bound op:
// - A row of at most TPR * VEC * CHUNKS elements is loaded up front, x first, then the weight
//   and bias chunks the thread will need (their latency hides behind the two reductions),
//   and x stays in registers as fp32: both passes over the row and the normalisation read
//   registers, so x moves from DRAM once and every thread has CHUNKS independent x loads in
//   flight.
// - Longer rows stay correct on a second path that streams the row three times, CHUNKS loads
//   at a time (the later passes mostly from L2). Which path runs depends on cols only.
// - Reductions are warp shuffles; a row wider than a warp adds one shared-memory exchange
//   and one __syncthreads per statistic (each statistic has its own slots, so no third
//   barrier; each block runs its rows once).
// - Output stores are streaming (st.global.cs): nothing reads them again in this kernel.
// Requirements: cols % VEC == 0, x / out / weight / bias aligned to min(16, VEC * sizeof(T)) bytes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace layernorm_detail {

// T <-> fp32 on the 32-bit words a chunk is moved in. 16-bit types pack element 2i in the low
// half of word i; fp32 has one element per word.
template <typename T> struct Codec;

template <> struct Codec<__nv_bfloat16> {
  static constexpr int kPerWord = 2;
  // bf16 -> fp32 is exact and is just the 16 bits moved to the top.
  static __device__ __forceinline__ float get(unsigned w, int half) {
    return __uint_as_float(half ? (w & 0xffff0000u) : (w << 16));
  }
  static __device__ __forceinline__ unsigned pack(float lo, float hi) {
    unsigned w;  // one round-to-nearest-even conversion of both halves
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
};

template <> struct Codec<__half> {
  static constexpr int kPerWord = 2;
  static __device__ __forceinline__ float get(unsigned w, int half) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(half ? (w >> 16) : w)));
  }
  static __device__ __forceinline__ unsigned pack(float lo, float hi) {
    unsigned w;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
};

template <> struct Codec<float> {
  static constexpr int kPerWord = 1;
  static __device__ __forceinline__ float get(unsigned w, int) { return __uint_as_float(w); }
};

// The register image of VEC consecutive elements, moved in accesses of at most 16 bytes.
// A single 16-bit element (VEC == 1) sits in the low half of w[0].
template <typename T, int VEC> struct Chunk {
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC must be 1, 2, 4 or 8");
  static constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  static constexpr int kWords = kBytes >= 4 ? kBytes / 4 : 1;
  unsigned w[kWords];

  __device__ __forceinline__ float get(int i) const {
    return Codec<T>::get(w[i / Codec<T>::kPerWord], i % Codec<T>::kPerWord);
  }
  // Element i of VEC values rounded to T (one rounding each).
  __device__ __forceinline__ void set_all(const float (&v)[VEC]) {
    if constexpr (Codec<T>::kPerWord == 1) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) w[i] = __float_as_uint(v[i]);
    } else if constexpr (VEC == 1) {
      w[0] = Codec<T>::pack(v[0], 0.f) & 0xffffu;
    } else {
#pragma unroll
      for (int i = 0; i < VEC / 2; ++i) w[i] = Codec<T>::pack(v[2 * i], v[2 * i + 1]);
    }
  }
};

// Loads through the read-only path (x, weight and bias are never written by this kernel).
template <typename T, int VEC> __device__ __forceinline__ Chunk<T, VEC> load_chunk(const T* p) {
  Chunk<T, VEC> c;
  constexpr int kBytes = Chunk<T, VEC>::kBytes;
  if constexpr (kBytes >= 16) {
#pragma unroll
    for (int q = 0; q < kBytes / 16; ++q) {
      const uint4 r = __ldg(reinterpret_cast<const uint4*>(p) + q);
      c.w[4 * q] = r.x; c.w[4 * q + 1] = r.y; c.w[4 * q + 2] = r.z; c.w[4 * q + 3] = r.w;
    }
  } else if constexpr (kBytes == 8) {
    const uint2 r = __ldg(reinterpret_cast<const uint2*>(p));
    c.w[0] = r.x; c.w[1] = r.y;
  } else if constexpr (kBytes == 4) {
    c.w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
  } else {
    c.w[0] = __ldg(reinterpret_cast<const unsigned short*>(p));
  }
  return c;
}

// Streaming (evict-first) stores: the output is not read again here.
template <typename T, int VEC> __device__ __forceinline__ void store_chunk(T* p, const Chunk<T, VEC>& c) {
  constexpr int kBytes = Chunk<T, VEC>::kBytes;
  if constexpr (kBytes >= 16) {
#pragma unroll
    for (int q = 0; q < kBytes / 16; ++q)
      __stcs(reinterpret_cast<uint4*>(p) + q, make_uint4(c.w[4 * q], c.w[4 * q + 1], c.w[4 * q + 2], c.w[4 * q + 3]));
  } else if constexpr (kBytes == 8) {
    __stcs(reinterpret_cast<uint2*>(p), make_uint2(c.w[0], c.w[1]));
  } else if constexpr (kBytes == 4) {
    __stcs(reinterpret_cast<unsigned*>(p), c.w[0]);
  } else {
    __stcs(reinterpret_cast<unsigned short*>(p), static_cast<unsigned short>(c.w[0]));
  }
}

template <typename T, int VEC> __device__ __forceinline__ Chunk<T, VEC> zero_chunk() {
  Chunk<T, VEC> c;
#pragma unroll
  for (int i = 0; i < Chunk<T, VEC>::kWords; ++i) c.w[i] = 0u;  // +0.0 in every type
  return c;
}

// y = T((x - mean) * rstd [* w + b]): the reference's operations in the reference's order.
template <typename T, bool AFFINE, int VEC>
__device__ __forceinline__ Chunk<T, VEC> normalise(const float (&x)[VEC], const Chunk<T, VEC>& w,
                                                   const Chunk<T, VEC>& b, float mean, float rstd) {
  float y[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    y[i] = (x[i] - mean) * rstd;
    if constexpr (AFFINE) y[i] = y[i] * w.get(i) + b.get(i);
  }
  Chunk<T, VEC> out;
  out.set_all(y);
  return out;
}

// 1/c within an ulp, without IEEE division: its slow path is a subroutine call, and the
// calling convention makes ptxas spill the cached chunks around it. The statistics differ from
// the reference's sum / cols by at most an fp32 ulp, far below the tolerances.
__device__ __forceinline__ float reciprocal(float c) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(c));
  return fmaf(fmaf(-c, r, 1.0f), r, r);  // one Newton step
}

// Sum over the TPR threads of a row; every thread of the row gets the same bits. Must be
// reached by every thread of the block (tail rows included). SLOT gives each statistic its own
// shared array (one per instantiation), so the second reduction never overwrites slots that a
// slow warp is still reading from the first: one barrier per statistic, none between them.
template <int TPR, int BLOCK, int SLOT>
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
template <typename T, bool AFFINE, int BLOCK, int VEC, int TPR, int CHUNKS>
__device__ __forceinline__ void cached_row(T* out_row, const T* x_row, const T* weight, const T* bias, bool row_ok,
                                           int lane, int n_chunks, float inv_cols, float eps) {
  // 1. Issue every load before any arithmetic on them: x first (the reductions wait on it),
  //    then the weight and bias chunks, consumed only after both reductions.
  Chunk<T, VEC> raw[CHUNKS], ws[CHUNKS], bs[CHUNKS];
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = lane + k * TPR;
    raw[k] = row_ok && c < n_chunks ? load_chunk<T, VEC>(x_row + c * VEC) : zero_chunk<T, VEC>();
  }
  if constexpr (AFFINE) {
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * TPR;
      ws[k] = row_ok && c < n_chunks ? load_chunk<T, VEC>(weight + c * VEC) : zero_chunk<T, VEC>();
      bs[k] = row_ok && c < n_chunks ? load_chunk<T, VEC>(bias + c * VEC) : zero_chunk<T, VEC>();
    }
  }
  // 2. x to fp32 once, and the mean (chunks past the row are zeros and add nothing).
  float xs[CHUNKS][VEC];
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      xs[k][i] = raw[k].get(i);
      sum += xs[k][i];
    }
  const float mean = row_sum<TPR, BLOCK, 0>(sum) * inv_cols;
  // 3. The variance around it, over the row's own chunks only (a zero chunk would add mean^2).
  float sum_sq = 0.f;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    if (lane + k * TPR < n_chunks) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float d = xs[k][i] - mean;
        sum_sq += d * d;
      }
    }
  }
  const float rstd = rsqrtf(row_sum<TPR, BLOCK, 1>(sum_sq) * inv_cols + eps);
  // 4. Normalise from registers and store.
  if (!row_ok) return;  // after the barriers: safe
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = lane + k * TPR;
    if (c < n_chunks) store_chunk<T, VEC>(out_row + c * VEC, normalise<T, AFFINE, VEC>(xs[k], ws[k], bs[k], mean, rstd));
  }
}

// Row too long for the registers: three passes over x (sum, squared deviations, normalise),
// CHUNKS loads in flight per step; the later passes mostly hit L2. Correct for any length;
// the configs keep the task's shapes off this path.
template <typename T, bool AFFINE, int BLOCK, int VEC, int TPR, int CHUNKS>
__device__ __forceinline__ void streamed_row(T* out_row, const T* x_row, const T* weight, const T* bias, bool row_ok,
                                             int lane, int n_chunks, float inv_cols, float eps) {
  float sum = 0.f;
  for (int base = lane; row_ok && base < n_chunks; base += CHUNKS * TPR) {
    Chunk<T, VEC> xs[CHUNKS];
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = base + k * TPR;
      xs[k] = c < n_chunks ? load_chunk<T, VEC>(x_row + c * VEC) : zero_chunk<T, VEC>();
    }
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
      for (int i = 0; i < VEC; ++i) sum += xs[k].get(i);
  }
  const float mean = row_sum<TPR, BLOCK, 0>(sum) * inv_cols;
  float sum_sq = 0.f;
  for (int base = lane; row_ok && base < n_chunks; base += CHUNKS * TPR) {
    Chunk<T, VEC> xs[CHUNKS];
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = base + k * TPR;
      xs[k] = c < n_chunks ? load_chunk<T, VEC>(x_row + c * VEC) : zero_chunk<T, VEC>();
    }
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      if (base + k * TPR < n_chunks) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          const float d = xs[k].get(i) - mean;
          sum_sq += d * d;
        }
      }
    }
  }
  const float rstd = rsqrtf(row_sum<TPR, BLOCK, 1>(sum_sq) * inv_cols + eps);
  if (!row_ok) return;  // after the barriers: safe
  for (int base = lane; base < n_chunks; base += CHUNKS * TPR) {
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = base + k * TPR;
      if (c >= n_chunks) break;
      const Chunk<T, VEC> raw = load_chunk<T, VEC>(x_row + c * VEC);
      float x[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) x[i] = raw.get(i);
      Chunk<T, VEC> w, b;
      if constexpr (AFFINE) {
        w = load_chunk<T, VEC>(weight + c * VEC);
        b = load_chunk<T, VEC>(bias + c * VEC);
      }
      store_chunk<T, VEC>(out_row + c * VEC, normalise<T, AFFINE, VEC>(x, w, b, mean, rstd));
    }
  }
}

}  // namespace layernorm_detail

// Left to itself, ptxas fits 2048 threads per SM at BLOCK >= 512 (32 registers) and spills the
// row; 1024 resident threads (64 registers) are occupancy enough. Smaller blocks keep ptxas's
// own register choice (a minimum of 0 emits no .minnctapersm): an explicit one only raised it.
template <typename T, bool AFFINE, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK, BLOCK >= 512 ? 1024 / BLOCK : 0)
layernorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                 const T* __restrict__ bias, int rows, int cols, float eps) {
  using namespace layernorm_detail;
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
  static_assert(BLOCK % ROWS_PER_BLOCK == 0, "BLOCK must split evenly into rows");
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;  // threads per row
  static_assert(TPR > 0 && (TPR & (TPR - 1)) == 0, "threads per row must be a power of two");
  static_assert(CHUNKS >= 1, "CHUNKS >= 1");

  const int lane = threadIdx.x % TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + threadIdx.x / TPR;
  // Tail rows of the last block touch no memory but still take part in the row reductions'
  // barriers, so nobody leaves early.
  const bool row_ok = row < rows;
  const int n_chunks = cols / VEC;
  const float inv_cols = reciprocal(static_cast<float>(cols));
  T* out_row = out + row * cols;
  const T* x_row = x + row * cols;
  // The same branch for the whole grid (it depends on cols only), so the barriers inside
  // are reached by every thread of a block.
  if (n_chunks <= CHUNKS * TPR)
    cached_row<T, AFFINE, BLOCK, VEC, TPR, CHUNKS>(out_row, x_row, weight, bias, row_ok, lane, n_chunks, inv_cols, eps);
  else
    streamed_row<T, AFFINE, BLOCK, VEC, TPR, CHUNKS>(out_row, x_row, weight, bias, row_ok, lane, n_chunks, inv_cols,
                                                     eps);
}
