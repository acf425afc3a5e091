#pragma once
// LayerNorm, the fast candidate. Same math as input/layernorm/layernorm.cuh: fp32 statistics,
// the mean, then the biased variance around it (never E[x^2] - E[x]^2: two reductions, or with
// STATS 1 one that merges each thread's mean and squared deviations, row_stats), then
// (x - mean) * rsqrt(var + eps) [* w + b] rounded once to T; so the two agree to within an ulp.
//
//   template <T, AFFINE, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS, X_L1, BUDGET, STORE_CS, WB_EARLY, STATS, SURE>
//   grid = ceil_div(rows, ROWS_PER_BLOCK), block = BLOCK, no dynamic shared memory.
//
// Layout of the work: a block holds ROWS_PER_BLOCK rows; each row gets TPR = BLOCK /
// ROWS_PER_BLOCK consecutive threads (a power of two up to a warp, so a row never straddles a
// warp unevenly; whole warps above, any count of them: 192 or 480 threads fit 3072 or 3840
// columns of 16-byte chunks exactly). VEC and CHUNKS count elements as for a 16-bit T, whatever T is (the config cannot
// see the dtype): a thread holds up to VEC * CHUNKS values of its row, as fp32 for every T. One
// access moves AV = min(VEC, 16 / sizeof(T)) elements, so fp32 at VEC = 8 moves four (one
// 16-byte load whose warp covers 512 contiguous bytes, not a 32-byte chunk moved by two loads
// that each use half of every sector they touch), and a thread owns AC = CHUNKS * VEC / AV
// chunks of AV: lane, lane + TPR, lane + 2*TPR, ... of its row. The values held per thread, and
// so the registers, are the same for bf16, fp16 and fp32.
//
// Why it is fast on a memory-bound op:
// - A row of at most TPR * VEC * CHUNKS elements is loaded up front, every x load before any
//   arithmetic, and stays in registers as fp32: both statistics and the normalisation read
//   registers, so x moves from DRAM once and every thread has AC independent loads in flight.
//   x does not allocate in L1 (it is read once), so L1 keeps what is reused: weight and bias.
// - Weight and bias are read in the store loop, after both reductions, one chunk at a time,
//   from L1 (every row on the SM reads the same 2 * cols * sizeof(T) bytes). Loaded with x
//   they stayed live across both reductions in as many registers again as x, and the affine
//   form ran 8-18% slower than the no-affine one on the H200 (ITERATIONS.md, layernorm). The
//   one-wave text-512 grid is the exception: WB_EARLY 1 loads them with x there (iteration 5).
// - The register budget per thread is set from the values held (min_blocks below), so both
//   forms and every dtype get the occupancy the row needs, not what ptxas happens to pick.
// - Longer rows stay correct on a second path that streams the row three times, AC loads at
//   a time for the statistics (the later passes mostly from L2). Which path runs depends on
//   cols only.
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

// The register image of VEC consecutive elements, moved as one access of at most 16 bytes.
// A single 16-bit element (VEC == 1) sits in the low half of w[0].
template <typename T, int VEC> struct Chunk {
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC must be 1, 2, 4 or 8");
  static constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  static_assert(kBytes <= 16, "one access moves at most 16 bytes");
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

// Elements per access for T when the config says VEC 16-bit elements: at most 16 bytes.
template <typename T> __host__ __device__ constexpr int access_elems(int vec) {
  return vec * static_cast<int>(sizeof(T)) > 16 ? 16 / static_cast<int>(sizeof(T)) : vec;
}

// Loads through the read-only path (x, weight and bias are never written by this kernel).
// L1_KEEP = 0: x in the cached path, read exactly once; no L1 line is allocated for it, so
// x streaming through does not evict the weight and bias that every row reuses from L1.
// SESSION 39 VARIANT (not the tree's): L1_KEEP is an L1 policy, 0 no_allocate, 1 the plain
// read-only load (__ldg), 2 L1::evict_first, 3 L1::evict_last.
template <typename T, int VEC, int L1_KEEP = 1>
__device__ __forceinline__ Chunk<T, VEC> load_chunk(const T* p) {
  Chunk<T, VEC> c;
  constexpr int kBytes = Chunk<T, VEC>::kBytes;
  if constexpr (kBytes == 16) {
    if constexpr (L1_KEEP == 1) {
      const uint4 r = __ldg(reinterpret_cast<const uint4*>(p));
      c.w[0] = r.x; c.w[1] = r.y; c.w[2] = r.z; c.w[3] = r.w;
    } else if constexpr (L1_KEEP == 2) {
      asm volatile("ld.global.nc.L1::evict_first.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(c.w[0]), "=r"(c.w[1]), "=r"(c.w[2]), "=r"(c.w[3]) : "l"(p));
    } else if constexpr (L1_KEEP == 3) {
      asm volatile("ld.global.nc.L1::evict_last.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(c.w[0]), "=r"(c.w[1]), "=r"(c.w[2]), "=r"(c.w[3]) : "l"(p));
    } else {
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(c.w[0]), "=r"(c.w[1]), "=r"(c.w[2]), "=r"(c.w[3]) : "l"(p));
    }
  } else if constexpr (kBytes == 8) {
    if constexpr (L1_KEEP == 1 || L1_KEEP == 3) {
      const uint2 r = __ldg(reinterpret_cast<const uint2*>(p));
      c.w[0] = r.x; c.w[1] = r.y;
    } else {
      asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(c.w[0]), "=r"(c.w[1]) : "l"(p));
    }
  } else if constexpr (kBytes == 4) {
    if constexpr (L1_KEEP == 1 || L1_KEEP == 3) c.w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
    else asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(c.w[0]) : "l"(p));
  } else {
    c.w[0] = __ldg(reinterpret_cast<const unsigned short*>(p));
  }
  return c;
}

// Streaming (st.global.cs) or plain write-back stores, by STORE_CS: plain ones are 0.3-1.2%
// faster on the image and video shapes of the H200, not on the 512-token ones (iteration 3).
template <bool CS, typename V> __device__ __forceinline__ void store_one(V* p, V v) {
  if constexpr (CS) __stcs(p, v); else *p = v;
}
template <typename T, int VEC, bool CS> __device__ __forceinline__ void store_chunk(T* p, const Chunk<T, VEC>& c) {
  constexpr int kBytes = Chunk<T, VEC>::kBytes;
  if constexpr (kBytes == 16) {
    store_one<CS>(reinterpret_cast<uint4*>(p), make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]));
  } else if constexpr (kBytes == 8) {
    store_one<CS>(reinterpret_cast<uint2*>(p), make_uint2(c.w[0], c.w[1]));
  } else if constexpr (kBytes == 4) {
    store_one<CS>(reinterpret_cast<unsigned*>(p), c.w[0]);
  } else {
    store_one<CS>(reinterpret_cast<unsigned short*>(p), static_cast<unsigned short>(c.w[0]));
  }
}

template <typename T, int VEC> __device__ __forceinline__ Chunk<T, VEC> zero_chunk() {
  Chunk<T, VEC> c;
#pragma unroll
  for (int i = 0; i < Chunk<T, VEC>::kWords; ++i) c.w[i] = 0u;  // +0.0 in every type
  return c;
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
// Shared memory through 32-bit addresses in inline PTX: nvcc (SGLang's JIT, where `ako port`
// ships this file) keeps shared-memory pointers in 32 bits and NVRTC (where ako measures it) in
// 64, so the two built different code from the same source; written out, they emit the same
// accesses (ITERATIONS.md layernorm iteration 7). The address is taken where it is used and made
// opaque, so the offsets are added in 32 bits by both; volatile and "memory" keep the accesses
// in order around the barrier.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm("" : "+r"(a));
  return a;
}
__device__ __forceinline__ void store_shared_f32(unsigned addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}
__device__ __forceinline__ float load_shared_f32(unsigned addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
}

// A row of whole warps whose count is not a power of two: row_sum and row_stats merge their partials
// in turn (no butterfly over them), and min_blocks budgets the registers that takes.
__host__ __device__ constexpr bool serial_warps(int tpr) { return tpr > 32 && ((tpr / 32) & (tpr / 32 - 1)) != 0; }

template <int TPR, int BLOCK, int SLOT>
__device__ __forceinline__ float row_sum(float v) {
  constexpr int kLanes = TPR < 32 ? TPR : 32;
  // xor offsets below kLanes stay inside an aligned group of kLanes lanes: the row's.
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if constexpr (TPR > 32) {
    constexpr int kWarpsPerRow = TPR / 32;
    __shared__ float warp_sums[BLOCK / 32];  // warps of row r: r * kWarpsPerRow ...
    const unsigned sums = shared_address(warp_sums);
    if (threadIdx.x % 32 == 0) store_shared_f32(sums + 4u * (threadIdx.x / 32), v);
    __syncthreads();
    if constexpr (serial_warps(TPR)) {
      // 3, 5, 6, 12 or 15 warps a row: every thread adds the row's warps' sums in warp order,
      // so every thread gets the same bits.
      const unsigned first = sums + 4u * ((threadIdx.x / TPR) * kWarpsPerRow);
      v = 0.f;
#pragma unroll
      for (int w = 0; w < kWarpsPerRow; ++w) v += load_shared_f32(first + 4u * w);
    } else {
      // Lane l reads warp l % kWarpsPerRow's sum and the warp butterflies over kWarpsPerRow
      // lanes: every group of lanes adds the same operands in the same pairs (xor partners add
      // a + b and b + a, the same bits), so every thread gets the same sum. One shared read and
      // log2(kWarpsPerRow) shuffles: no register per warp of the row (16 at TPR = 512).
      v = load_shared_f32(sums + 4u * ((threadIdx.x / TPR) * kWarpsPerRow + threadIdx.x % kWarpsPerRow));
#pragma unroll
      for (int offset = kWarpsPerRow / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
  }
  return v;
}

// The row's mean and sum of squared deviations in one reduction (STATS 1): each thread's (mean,
// m2) over its COUNT values, merged pairwise by Chan, Golub and LeVeque's update for equal
// counts n: mean = (ma + mb) / 2, m2 = m2a + m2b + (mb - ma)^2 * n / 2. Each step is symmetric in
// a and b (xor partners get the same bits), and past a warp the lanes butterfly over the warps'
// partials as row_sum does: every thread of the row gets the same mean and m2. One barrier
// where the two statistics take two; no E[x^2] - E[x]^2 cancellation. Same contract as row_sum.
template <int TPR, int BLOCK, int COUNT>
__device__ __forceinline__ void row_stats(float& mean, float& m2) {
  constexpr int kLanes = TPR < 32 ? TPR : 32;
  float half_n = 0.5f * COUNT;  // half the count of each side at this step
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2, half_n *= 2.f) {
    const float mb = __shfl_xor_sync(0xffffffffu, mean, offset), m2b = __shfl_xor_sync(0xffffffffu, m2, offset);
    const float d = mb - mean;
    m2 = (m2 + m2b) + d * d * half_n;
    mean = 0.5f * (mean + mb);
  }
  if constexpr (TPR > 32) {
    constexpr int kWarpsPerRow = TPR / 32;
    __shared__ float warp_means[BLOCK / 32], warp_m2s[BLOCK / 32];
    const unsigned means = shared_address(warp_means), m2s = shared_address(warp_m2s);
    if (threadIdx.x % 32 == 0) {
      store_shared_f32(means + 4u * (threadIdx.x / 32), mean);
      store_shared_f32(m2s + 4u * (threadIdx.x / 32), m2);
    }
    __syncthreads();
    if constexpr (serial_warps(TPR)) {
      // Every thread merges the row's warps in warp order (Chan et al.'s update for counts n_a =
      // w warps and n_b = one warp), the same operations in each: the same bits in every thread.
      const unsigned first = 4u * ((threadIdx.x / TPR) * kWarpsPerRow);
      mean = load_shared_f32(means + first);
      m2 = load_shared_f32(m2s + first);
#pragma unroll
      for (int w = 1; w < kWarpsPerRow; ++w) {
        const float mb = load_shared_f32(means + first + 4u * w), m2b = load_shared_f32(m2s + first + 4u * w);
        const float d = mb - mean;
        mean += d * (1.0f / (w + 1));                           // n_b / (n_a + n_b)
        m2 = (m2 + m2b) + d * d * (32.f * COUNT * w / (w + 1));  // n_a n_b / (n_a + n_b)
      }
    } else {
      const unsigned mine = 4u * ((threadIdx.x / TPR) * kWarpsPerRow + threadIdx.x % kWarpsPerRow);
      mean = load_shared_f32(means + mine);
      m2 = load_shared_f32(m2s + mine);
      float half_w = 16.f * COUNT;  // half a warp's count, doubling
#pragma unroll
      for (int offset = kWarpsPerRow / 2; offset > 0; offset /= 2, half_w *= 2.f) {
        const float mb = __shfl_xor_sync(0xffffffffu, mean, offset), m2b = __shfl_xor_sync(0xffffffffu, m2, offset);
        const float d = mb - mean;
        m2 = (m2 + m2b) + d * d * half_w;
        mean = 0.5f * (mean + mb);
      }
    }
  }
}

// The thread's part of a row from chunk `first` on: chunks first, first + TPR, ... (CHUNKS of
// them), every load issued before any is widened, then widened to fp32; chunks past the row
// (or of a tail row, ok = false) are zeros.
template <typename T, int VEC, int TPR, int CHUNKS, int L1_KEEP, int SURE_CHUNKS = 0>
__device__ __forceinline__ void load_part(float (&xs)[CHUNKS][VEC], const T* x_row, int first, int n_chunks, bool ok) {
  Chunk<T, VEC> raw[CHUNKS];
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = first + k * TPR;
    raw[k] = ok && (k < SURE_CHUNKS || c < n_chunks) ? load_chunk<T, VEC, L1_KEEP>(x_row + c * VEC) : zero_chunk<T, VEC>();
  }
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
    for (int i = 0; i < VEC; ++i) xs[k][i] = raw[k].get(i);
}

// Sum of squared deviations from the mean over the part's chunks inside the row (a zero chunk
// past the row would add mean^2).
template <int VEC, int TPR, int CHUNKS, int SURE_CHUNKS = 0>
__device__ __forceinline__ float part_sum_sq(const float (&xs)[CHUNKS][VEC], int first, int n_chunks, float mean) {
  float sum_sq = 0.f;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    if (k < SURE_CHUNKS || first + k * TPR < n_chunks) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float d = xs[k][i] - mean;
        sum_sq += d * d;
      }
    }
  }
  return sum_sq;
}

// y = T((x - mean) * rstd [* w + b]) for the part's chunks inside the row, the reference's
// operations in the reference's order, one rounding each. The affine form reads a chunk's
// weight and bias here, just before they are used: nothing of them is live across the
// reductions, they are read from L1 (every row on the SM reads the same 2 * cols * sizeof(T)
// bytes), and each chunk's values are consumed before the next chunk's are read.
// WB_EARLY: the weight and bias chunks were loaded with x (`wb`, packed as loaded) instead.
template <typename T, bool AFFINE, int VEC, int TPR, int CHUNKS, bool CS, bool WB_EARLY = false, int SURE_CHUNKS = 0,
          int WP = 1>
__device__ __forceinline__ void store_part(T* out_row, const float (&xs)[CHUNKS][VEC], const T* weight,
                                           const T* bias, int first, int n_chunks, float mean, float rstd,
                                           const Chunk<T, VEC> (*wb)[CHUNKS] = nullptr) {
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = first + k * TPR;
    if (k >= SURE_CHUNKS && c >= n_chunks) break;
    float y[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i) y[i] = (xs[k][i] - mean) * rstd;
    if constexpr (AFFINE) {
      const Chunk<T, VEC> w = WB_EARLY ? wb[0][k] : load_chunk<T, VEC, WP>(weight + c * VEC);
      const Chunk<T, VEC> b = WB_EARLY ? wb[1][k] : load_chunk<T, VEC, WP>(bias + c * VEC);
#pragma unroll
      for (int i = 0; i < VEC; ++i) y[i] = y[i] * w.get(i) + b.get(i);
    }
    Chunk<T, VEC> out;
    out.set_all(y);
    store_chunk<T, VEC, CS>(out_row + c * VEC, out);
  }
}

// Row in registers: every chunk of the row is one of this thread's CHUNKS chunks (VEC and
// CHUNKS here are the kernel's access-level AV and AC; the first SURE_CHUNKS of them lie in the row
// on every launch, so they skip the bounds test). X_L1 = false: x bypasses L1 (it is read
// once); true: x is read through L1 like weight and bias (the tuner picks, ITERATIONS.md).
// WB_EARLY (affine only): the thread's weight and bias chunks are requested right after x and
// held packed across both reductions. On a one-wave grid (the 512-token text stream: 512 rows,
// every block resident at once) their L2 / DRAM latency after the reductions is not hidden by
// other blocks' work; elsewhere the registers they hold cost occupancy (iteration 1). It pays
// only where the grid still fits in one wave: at BLOCK 512 its 8 registers cost text-512 the
// fourth block an SM and a second wave (1.33x slower, iteration 5); the tuner picks per class.
// SESSION 39 VARIANT: X_L1 0 / 1 as the tree's; 5: x evict_first, weight and bias evict_last; 6: x as
// X_L1 1, weight and bias evict_last; 7: x as X_L1 0, weight and bias evict_last.
template <typename T, bool AFFINE, int BLOCK, int VEC, int TPR, int CHUNKS, int X_L1, bool CS, bool WB_EARLY, bool STATS,
          int SURE_CHUNKS>
__device__ __forceinline__ void cached_row(T* out_row, const T* x_row, const T* weight, const T* bias, bool row_ok,
                                           int lane, int n_chunks, float inv_cols, float eps) {
  float xs[CHUNKS][VEC];
  constexpr int kXP = X_L1 == 5 ? 2 : X_L1 == 6 ? 1 : X_L1 == 7 ? 0 : (X_L1 != 0 ? 1 : 0);
  constexpr int kWP = X_L1 >= 5 ? 3 : 1;
  load_part<T, VEC, TPR, CHUNKS, kXP, SURE_CHUNKS>(xs, x_row, lane, n_chunks, row_ok);
  constexpr bool kEarly = AFFINE && WB_EARLY;
  Chunk<T, VEC> wb[2][CHUNKS];
  if constexpr (kEarly) {
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * TPR;
      const bool in = row_ok && c < n_chunks;
      wb[0][k] = in ? load_chunk<T, VEC, kWP>(weight + c * VEC) : zero_chunk<T, VEC>();
      wb[1][k] = in ? load_chunk<T, VEC, kWP>(bias + c * VEC) : zero_chunk<T, VEC>();
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
    for (int i = 0; i < VEC; ++i) sum += xs[k][i];
  float mean, rstd;
  if (STATS && n_chunks == CHUNKS * TPR) {  // every thread holds CHUNKS * VEC of the row's values
    mean = sum * (1.0f / (CHUNKS * VEC));
    float m2 = part_sum_sq<VEC, TPR, CHUNKS, SURE_CHUNKS>(xs, lane, n_chunks, mean);
    row_stats<TPR, BLOCK, CHUNKS * VEC>(mean, m2);
    rstd = rsqrtf(m2 * inv_cols + eps);
  } else {
    mean = row_sum<TPR, BLOCK, 0>(sum) * inv_cols;
    const float sum_sq = part_sum_sq<VEC, TPR, CHUNKS, SURE_CHUNKS>(xs, lane, n_chunks, mean);
    rstd = rsqrtf(row_sum<TPR, BLOCK, 1>(sum_sq) * inv_cols + eps);
  }
  if (!row_ok) return;  // after the barriers: safe
  store_part<T, AFFINE, VEC, TPR, CHUNKS, CS, kEarly, SURE_CHUNKS, kWP>(out_row, xs, weight, bias, lane, n_chunks, mean, rstd, wb);
}

// Row too long for the registers: three passes over x (sum, squared deviations, normalise),
// each CHUNKS chunks at a time with the cached path's pieces; the later passes mostly hit L2
// (here x keeps L1: a pass may still find the previous pass's lines). Correct for any length;
// the configs keep the task's shapes off this path.
template <typename T, bool AFFINE, int BLOCK, int VEC, int TPR, int CHUNKS, bool CS>
__device__ __forceinline__ void streamed_row(T* out_row, const T* x_row, const T* weight, const T* bias, bool row_ok,
                                             int lane, int n_chunks, float inv_cols, float eps) {
  float sum = 0.f;
  // CHUNKS loads in flight per step, not more: unrolled, ptxas held several steps at once.
#pragma unroll 1
  for (int first = lane; row_ok && first < n_chunks; first += CHUNKS * TPR) {
    float xs[CHUNKS][VEC];
    load_part<T, VEC, TPR, CHUNKS, true>(xs, x_row, first, n_chunks, true);
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
      for (int i = 0; i < VEC; ++i) sum += xs[k][i];
  }
  const float mean = row_sum<TPR, BLOCK, 0>(sum) * inv_cols;
  float sum_sq = 0.f;
#pragma unroll 1
  for (int first = lane; row_ok && first < n_chunks; first += CHUNKS * TPR) {
    float xs[CHUNKS][VEC];
    load_part<T, VEC, TPR, CHUNKS, true>(xs, x_row, first, n_chunks, true);
    sum_sq += part_sum_sq<VEC, TPR, CHUNKS>(xs, first, n_chunks, mean);
  }
  const float rstd = rsqrtf(row_sum<TPR, BLOCK, 1>(sum_sq) * inv_cols + eps);
  if (!row_ok) return;  // after the barriers: safe
  // The store pass one chunk at a time: with CHUNKS in flight here too, ptxas needed more
  // registers than the cached path and set the count of the whole kernel (budgeted to the
  // cached path's needs, it spilled).
#pragma unroll 1
  for (int c = lane; c < n_chunks; c += TPR) {
    float xs[1][VEC];
    load_part<T, VEC, TPR, 1, true>(xs, x_row, c, n_chunks, true);
    store_part<T, AFFINE, VEC, TPR, 1, CS>(out_row, xs, weight, bias, c, n_chunks, mean, rstd);
  }
}

// Blocks per SM for __launch_bounds__: as many as fit when each thread has the registers its
// row needs: its VEC * CHUNKS fp32 values; about 16 for addresses, indices and the statistics;
// 4 more for the affine form's weight and bias chunk at the store; 4 per access chunk past six
// (their bounds and addresses no longer fit beside the values); rounded up to ptxas's
// allocation unit of 8. So 12 values: 32 registers in both forms (2048 threads per SM); 20: 40
// in both; 16 or 24: one unit more for the affine form (at the no-affine count ptxas spilled x
// values). Fitted with ptxas 13.0 over the tuner's space (BLOCK x VEC x CHUNKS x 1, 2, 8 rows,
// bf16 and fp32, both forms): nothing spills but 1024-thread blocks holding 48 or more values
// (64 registers is all such a block can have; the constraints keep them off the task's widths).
// An SM holds 4 x 512 warp-registers, one bank per sub-partition; at least one block, at most
// 2048 threads and 32 blocks.
// Registers of one thread's weight and bias chunks held packed (WB_EARLY): two per access chunk.
template <typename T> __host__ __device__ constexpr int early_words(int vec, int chunks) {
  return 2 * (chunks * vec / access_elems<T>(vec)) * ((access_elems<T>(vec) * static_cast<int>(sizeof(T)) + 3) / 4);
}

// early_words: the 32-bit words of weight and bias a thread holds across the reductions (WB_EARLY).
// serial_warps: a row of whole warps that are not a power of two, whose partials every thread
// reads and merges in turn (row_sum, row_stats): 8 more; without them fp32 rows of 16 values
// at 96-384 threads spilled 4 bytes, and with 4 more the affine ones (ako compile, sm_90a).
__host__ __device__ constexpr int min_blocks(int block, int values, int access_chunks, bool affine, int early_words = 0,
                                             bool serial_warps = false) {
  const int regs = (values + (affine ? 20 : 16) + early_words + (access_chunks > 6 ? 4 * (access_chunks - 6) : 0) +
                    (serial_warps ? 8 : 0) + 7) / 8 * 8;
  const int fit = 4 * (512 / regs) / (block / 32);
  const int most = 2048 / block < 32 ? 2048 / block : 32;
  return fit < 1 ? 1 : fit > most ? most : fit;
}

}  // namespace layernorm_detail

// The register budget is set here (min_blocks), not left to ptxas: left to itself it chose
// counts that moved by a granule with small code changes, held the affine form's weight and
// bias loads of several chunks in flight (a granule above the no-affine form), and at BLOCK >=
// 512 fitted 2048 threads and spilled the row. The budget depends on the values a thread holds
// and the form, not on T: fp32 gets the occupancy of bf16.
// X_L1 (0 / 1): x loaded without / with an L1 allocation; BUDGET (1 / 0): the register budget of
// min_blocks, or ptxas's own choice. Iteration 1 set both for every layout and lost 4-7% on
// the no-affine form at 3072 and 5120 columns (ITERATIONS.md, layernorm): tunable, so the H200
// file says per width which one streams faster.
// WB_EARLY (0 / 1): the affine form's weight and bias read at the store (0) or with x (1,
// cached rows only; iteration 5). STATS (0 / 1): the two statistics in two reductions or one
// (cached rows that fill every thread's chunks only; iteration 8).
// SURE (0 / 1): every chunk bounds-tested, or only a thread's last one on the cached path (below).
template <typename T, bool AFFINE, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS, int X_L1 = 0, int BUDGET = 1,
          int STORE_CS = 1, int WB_EARLY = 0, int STATS = 0, int SURE = 0>
__global__ void __launch_bounds__(
    BLOCK, BUDGET ? layernorm_detail::min_blocks(BLOCK, VEC * CHUNKS, CHUNKS * VEC / layernorm_detail::access_elems<T>(VEC), AFFINE,
                                                 AFFINE && WB_EARLY ? layernorm_detail::early_words<T>(VEC, CHUNKS) : 0,
                                                 layernorm_detail::serial_warps(BLOCK / ROWS_PER_BLOCK))
           : 1)
layernorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                 const T* __restrict__ bias, int rows, int cols, float eps) {
  using namespace layernorm_detail;
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
  static_assert(BLOCK % ROWS_PER_BLOCK == 0, "BLOCK must split evenly into rows");
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;  // threads per row
  static_assert(TPR > 32 ? TPR % 32 == 0 : TPR > 0 && (TPR & (TPR - 1)) == 0,
                "threads per row: a power of two up to a warp, whole warps above");
  static_assert(CHUNKS >= 1, "CHUNKS >= 1");
  // The access the dtype allows (at most 16 bytes) and as many chunks of it as keep VEC *
  // CHUNKS values per thread: fp32 at VEC = 8 moves 4 elements per access and twice the chunks.
  constexpr int AV = access_elems<T>(VEC);
  constexpr int AC = CHUNKS * (VEC / AV);

  const int lane = threadIdx.x % TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + threadIdx.x / TPR;
  // Tail rows of the last block touch no memory but still take part in the row reductions'
  // barriers, so nobody leaves early.
  const bool row_ok = row < rows;
  const int n_chunks = cols / AV;
  const float inv_cols = reciprocal(static_cast<float>(cols));
  T* out_row = out + row * cols;
  const T* x_row = x + row * cols;
  // The same branch for the whole grid (it depends on cols only), so the barriers inside
  // are reached by every thread of a block.
  // SURE 1: the task's constraint (CHUNKS - 1) * TPR * VEC < cols puts every access chunk of a thread
  // but those of its last VEC-chunk inside the row, so the cached path loads, sums and stores them
  // without the bounds test (ITERATIONS.md, layernorm iteration 12). A launch that breaks the constraint
  // traps instead of reading past the row (the port and ako's checks refuse it before it launches).
  constexpr int kSure = SURE ? AC - VEC / AV : 0;
  if (kSure > 0 && n_chunks <= kSure * TPR) __trap();
  if (n_chunks <= AC * TPR)
    cached_row<T, AFFINE, BLOCK, AV, TPR, AC, X_L1, STORE_CS != 0, WB_EARLY != 0, STATS != 0, kSure>(out_row, x_row, weight, bias, row_ok, lane, n_chunks, inv_cols, eps);
  else
    streamed_row<T, AFFINE, BLOCK, AV, TPR, AC, STORE_CS != 0>(out_row, x_row, weight, bias, row_ok, lane, n_chunks, inv_cols, eps);
}
