#pragma once
// The fast candidate of both norm-fusion tasks, one kernel body:
//
//   norm_scale_shift_kernel:                y = T(norm(x) * (1 + scale) + shift)
//   residual_gate_norm_scale_shift_kernel:  residual_out = T(residual + gate * x),
//                                           y = T(norm(residual_out) * (1 + scale) + shift)
//
// norm is LayerNorm (biased variance around the mean, from the registers: two reductions, or
// one with STATS 1, see row_stats) or RMSNorm, affine
// optional; scale / shift / gate broadcast from [1], [C], [B,1,C], [1,L,C], [B,L,C] or
// [B,F,1,C] (frame = l / (L / F)). Same math as the references (input/norm_scale_shift/,
// input/residual_gate_norm_scale_shift/): fp32 throughout, one rounding per output.
//
//   template <T, S, NORM, MOD, [GATE,] AFFINE, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS, EARLY_MOD, MIN_BLOCKS,
//             ROW_CACHE, TOKENS, STORE_CS, STATS[, WALK, DEPTH]>
//   grid = ceil_div(B * L, ROWS_PER_BLOCK * TOKENS * WALK), block = BLOCK, no dynamic shared memory.
//   WALK and DEPTH: a group walks WALK tokens in turn, its row streams copied DEPTH tokens ahead
//   (walked_rows; WALK 1 is fused_rows, the kernel of before).
//
// Work layout (as solution/rmsnorm/rmsnorm.cuh): a block holds ROWS_PER_BLOCK groups of TOKENS
// consecutive tokens (TOKENS = 1 but for small grids and Wan's per-frame rows, see fused_rows),
// each group TPR = BLOCK / ROWS_PER_BLOCK consecutive threads (a power of two up to a warp, whole
// warps above). A thread moves VEC elements per access (VEC = 8: 16-byte accesses for 16-bit
// types) and owns chunks lane, lane + TPR, ... of each of its tokens: CHUNKS of them, which must
// cover the row (the task's constraints say so), so the row is read from HBM once and kept in
// registers, packed in T, for both reduction passes and the output pass.
// - The residual variant keeps residual_out as stored (rounded to T): exactly the value the
//   norm must see, in half the registers of fp32.
// - scale / shift / weight / bias are small broadcast tensors that L2 serves; they are loaded
//   through the read-only path after the reductions (EARLY_MOD = 0, fewer registers; a
//   prefetch of them into L1 with the row was measured 1.1-1.6x slower on the H200,
//   ITERATIONS.md norm_scale_shift iteration 1) or before them (EARLY_MOD = 1, their latency
//   hidden behind the reductions, in registers: 16 per chunk for fp32 scale + shift), or
//   copied before them into shared memory by cp.async (EARLY_MOD = 2: the latency hidden
//   without the registers, for BLOCK * CHUNKS * 2 * VEC * sizeof(S) bytes of shared memory; made
//   for Wan's per-frame rows, which each SM meets cold 21 times, ITERATIONS.md norm_scale_shift
//   iteration 14; weight and bias, the same row for every token, stay late), or the block's
//   first token's rows copied so once for all the block's tokens (EARLY_MOD = 3, 2 * CHUNKS * TPR *
//   VEC * sizeof(S) bytes a block: Wan's fp32 per-frame rows cross from L2 once a block, not
//   once a token, iteration 20), or as 3 with weight and bias staged too and all four folded
//   once a block into fp32 factor and offset rows (EARLY_MOD = 4, iteration 38). The gate is
//   needed first and comes with residual and x. Per-token modulation ([B,L,C]) is a
//   stream as large as x and is loaded like x and residual.
// - The row streams (x, residual, per-token modulation) are loaded evict-first (ld.global.cs,
//   ROW_CACHE = 0) or through the read-only cached path (ld.global.nc, ROW_CACHE = 1). Neither
//   wins everywhere on the H200 (ITERATIONS.md, norm_scale_shift iteration 4): the cached loads
//   are 2-4% faster on the video and most image shapes, 2% slower on the 512-token text
//   stream, so the config picks per class.
// - Stores are streaming (st.global.cs): nothing reads y or residual_out again here.
// Requirements: C % VEC == 0, every pointer aligned to VEC elements of its type, B * L < 2^31.
// EARLY_MOD 2 and 3 also need VEC * sizeof(S) of 4, 8 or 16*k bytes (cp.async's sizes): VEC >= 2.
// T may be bf16, fp16 or fp32 (the tasks run bf16 and fp16); S (scale, shift, gate) T or fp32.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Norm { layer, rms };
enum class Layout { none, scalar, c, bc, lc, blc, bf1c };

namespace nss_detail {

// The register image of BYTES bytes, moved in 16-byte pieces (or one smaller access).
template <int BYTES> struct Raw {
  static_assert(BYTES == 2 || BYTES == 4 || BYTES == 8 || BYTES % 16 == 0, "access of 2, 4, 8 or 16*k bytes");
  static constexpr int kWords = BYTES >= 4 ? BYTES / 4 : 1;
  unsigned w[kWords];
};

// Read-only path (ld.global.nc: kept in L1 / L2) unless STREAM: evict-first (ld.global.cs).
template <int BYTES, bool STREAM> __device__ __forceinline__ Raw<BYTES> load_raw(const void* p) {
  Raw<BYTES> r;
  if constexpr (BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < BYTES / 16; ++i) {
      const uint4* q = static_cast<const uint4*>(p) + i;
      const uint4 v = STREAM ? __ldcs(q) : __ldg(q);
      r.w[4 * i] = v.x; r.w[4 * i + 1] = v.y; r.w[4 * i + 2] = v.z; r.w[4 * i + 3] = v.w;
    }
  } else if constexpr (BYTES == 8) {
    const uint2* q = static_cast<const uint2*>(p);
    const uint2 v = STREAM ? __ldcs(q) : __ldg(q);
    r.w[0] = v.x; r.w[1] = v.y;
  } else if constexpr (BYTES == 4) {
    const unsigned* q = static_cast<const unsigned*>(p);
    r.w[0] = STREAM ? __ldcs(q) : __ldg(q);
  } else {
    const unsigned short* q = static_cast<const unsigned short*>(p);
    r.w[0] = STREAM ? __ldcs(q) : __ldg(q);
  }
  return r;
}

// CS: streaming stores (st.global.cs, evict-first) or plain write-back ones; which is faster
// depends on the shape and the layout (a parameter, STORE_CS; ITERATIONS.md norm_scale_shift
// iteration 13).
template <bool CS, typename V> __device__ __forceinline__ void store_one(V* p, V v) {
  if constexpr (CS) __stcs(p, v); else *p = v;
}
template <int BYTES, bool CS> __device__ __forceinline__ void store_raw(void* p, const Raw<BYTES>& r) {
  if constexpr (BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < BYTES / 16; ++i)
      store_one<CS>(static_cast<uint4*>(p) + i, make_uint4(r.w[4 * i], r.w[4 * i + 1], r.w[4 * i + 2], r.w[4 * i + 3]));
  } else if constexpr (BYTES == 8) {
    store_one<CS>(static_cast<uint2*>(p), make_uint2(r.w[0], r.w[1]));
  } else if constexpr (BYTES == 4) {
    store_one<CS>(static_cast<unsigned*>(p), r.w[0]);
  } else {
    store_one<CS>(static_cast<unsigned short*>(p), static_cast<unsigned short>(r.w[0]));
  }
}

// Element i of a packed image, and packing with one round-to-nearest-even per element.
template <typename T> struct Codec;

template <> struct Codec<float> {
  static __device__ __forceinline__ float get(const unsigned* w, int i) { return __uint_as_float(w[i]); }
  template <int N> static __device__ __forceinline__ void put(unsigned* w, const float* v) {
#pragma unroll
    for (int i = 0; i < N; ++i) w[i] = __float_as_uint(v[i]);
  }
};

template <> struct Codec<__nv_bfloat16> {
  // bf16 -> fp32 is exact: the 16 bits moved to the top. Element 2i is the low half of word i.
  static __device__ __forceinline__ float get(const unsigned* w, int i) {
    return __uint_as_float(i % 2 == 0 ? w[i / 2] << 16 : w[i / 2] & 0xffff0000u);
  }
  static __device__ __forceinline__ unsigned pack2(float lo, float hi) {
    unsigned w;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
  template <int N> static __device__ __forceinline__ void put(unsigned* w, const float* v) {
    if constexpr (N == 1) {
      w[0] = pack2(v[0], 0.f) & 0xffffu;
    } else {
#pragma unroll
      for (int i = 0; i < N / 2; ++i) w[i] = pack2(v[2 * i], v[2 * i + 1]);
    }
  }
};

template <> struct Codec<__half> {
  static __device__ __forceinline__ float get(const unsigned* w, int i) {
    const unsigned short h = static_cast<unsigned short>(i % 2 == 0 ? w[i / 2] : w[i / 2] >> 16);
    return __half2float(__ushort_as_half(h));
  }
  static __device__ __forceinline__ unsigned pack2(float lo, float hi) {
    unsigned w;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
  template <int N> static __device__ __forceinline__ void put(unsigned* w, const float* v) {
    if constexpr (N == 1) {
      w[0] = pack2(v[0], 0.f) & 0xffffu;
    } else {
#pragma unroll
      for (int i = 0; i < N / 2; ++i) w[i] = pack2(v[2 * i], v[2 * i + 1]);
    }
  }
};

// VEC consecutive elements of type E in registers.
template <typename E, int VEC> struct Frag {
  Raw<VEC * static_cast<int>(sizeof(E))> raw;
  __device__ __forceinline__ float operator[](int i) const { return Codec<E>::get(raw.w, i); }
  static __device__ __forceinline__ Frag zero() {
    Frag f;
#pragma unroll
    for (int i = 0; i < decltype(raw)::kWords; ++i) f.raw.w[i] = 0u;  // +0.0 in every type
    return f;
  }
  static __device__ __forceinline__ Frag pack(const float* v) {
    Frag f;
    Codec<E>::template put<VEC>(f.raw.w, v);
    return f;
  }
};

template <typename E, int VEC, bool STREAM = false> __device__ __forceinline__ Frag<E, VEC> load(const E* p) {
  return Frag<E, VEC>{load_raw<VEC * static_cast<int>(sizeof(E)), STREAM>(p)};
}
template <bool CS, typename E, int VEC> __device__ __forceinline__ void store(E* p, const Frag<E, VEC>& f) {
  store_raw<VEC * static_cast<int>(sizeof(E)), CS>(p, f.raw);
}

// cp.async (sm_80+): BYTES from global into shared memory through L1 (.ca: the broadcast rows are
// read by the SM's next tokens too), no register holding them; visible to this thread after
// cp_async_wait_all(). EARLY_MOD 2: each thread reads back only what it copied, so no barrier is
// needed; EARLY_MOD 3 shares the copies across the block: a barrier after the wait.
template <int BYTES> __device__ __forceinline__ void cp_async_to_shared(unsigned s, const void* global) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES % 16 == 0, "cp.async moves 4, 8 or 16*k bytes");
  constexpr int kPiece = BYTES < 16 ? BYTES : 16;
#pragma unroll
  for (int i = 0; i < BYTES / kPiece; ++i)
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s + i * kPiece),
                 "l"(static_cast<const char*>(global) + i * kPiece), "n"(kPiece) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Shared memory through 32-bit addresses in inline PTX: nvcc (SGLang's JIT, where `ako port`
// ships this file) keeps shared-memory pointers in 32 bits and NVRTC (where ako measures it) in
// 64, and ptxas allocated a few kernels differently between the two builds, across an occupancy
// step on three of them (ITERATIONS.md norm_scale_shift iterations 17-18). Written out, both
// compilers emit the same accesses. volatile and "memory": kept in order around the barriers.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm("" : "+r"(a));  // opaque from here: the offsets are added in 32 bits by both compilers
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
template <int BYTES> __device__ __forceinline__ Raw<BYTES> load_shared(unsigned a) {
  Raw<BYTES> r;
  if constexpr (BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < BYTES / 16; ++i)
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r.w[4 * i]), "=r"(r.w[4 * i + 1]), "=r"(r.w[4 * i + 2]), "=r"(r.w[4 * i + 3])
                   : "r"(a + 16 * i) : "memory");
  } else if constexpr (BYTES == 8) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(r.w[0]), "=r"(r.w[1]) : "r"(a) : "memory");
  } else {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r.w[0]) : "r"(a) : "memory");
  }
  return r;
}

template <int BYTES> __device__ __forceinline__ void store_shared(unsigned a, const Raw<BYTES>& r) {
  static_assert(BYTES % 16 == 0 || BYTES == 8 || BYTES == 4, "shared stores of 4, 8 or 16*k bytes");
  if constexpr (BYTES >= 16) {
#pragma unroll
    for (int i = 0; i < BYTES / 16; ++i)
      asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a + 16 * i), "r"(r.w[4 * i]),
                   "r"(r.w[4 * i + 1]), "r"(r.w[4 * i + 2]), "r"(r.w[4 * i + 3]) : "memory");
  } else if constexpr (BYTES == 8) {
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(a), "r"(r.w[0]), "r"(r.w[1]) : "memory");
  } else {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(r.w[0]) : "memory");
  }
}

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

// A broadcast tensor (scale, shift or gate) seen from one token: its row and how to read a
// chunk of it. scalar: one value for everything; none: the constant 1 (an absent gate).
template <typename S, int VEC, Layout M> struct Modulation {
  const S* row = nullptr;
  float value = 1.0f;

  __device__ __forceinline__ Modulation(const S* p, int b, int l, int L, int C, int F) {
    if constexpr (M == Layout::scalar) value = to_float(__ldg(p));
    else if constexpr (M == Layout::c) row = p;
    else if constexpr (M == Layout::bc) row = p + static_cast<long long>(b) * C;
    else if constexpr (M == Layout::lc) row = p + static_cast<long long>(l) * C;
    else if constexpr (M == Layout::blc) row = p + (static_cast<long long>(b) * L + l) * C;
    else if constexpr (M == Layout::bf1c) row = p + static_cast<long long>(b * F + l / (L / F)) * C;
  }
  // Chunk at column col; per-token modulation is loaded as the row streams are (EVICT_FIRST),
  // the rest stays cached.
  template <bool EVICT_FIRST> __device__ __forceinline__ Frag<S, VEC> load_chunk(int col) const {
    if constexpr (M == Layout::scalar || M == Layout::none) return Frag<S, VEC>::zero();  // unused
    else return load<S, VEC, EVICT_FIRST && M == Layout::blc>(row + col);
  }
  __device__ __forceinline__ float at(const Frag<S, VEC>& f, int i) const {
    if constexpr (M == Layout::scalar || M == Layout::none) return value;
    else return f[i];
  }
};

// Session 41 variant: residual_out = residual + gate * x in packed 16-bit arithmetic where x, residual
// and the gate share the 16-bit type (one fma.rn.{f16,bf16}x2 per pair: the exact value rounded once,
// where the fp32 path rounds to fp32 and then to T). Else the fp32 path. Returns the rounded row chunk.
template <typename A, typename B> struct SameType { static constexpr bool value = false; };
template <typename A> struct SameType<A, A> { static constexpr bool value = true; };
template <typename T> struct Packed2;
template <> struct Packed2<__half> {
  using V = __half2;
  static __device__ __forceinline__ V of(unsigned w) { return *reinterpret_cast<const V*>(&w); }
  static __device__ __forceinline__ unsigned word(V v) { return *reinterpret_cast<const unsigned*>(&v); }
  static __device__ __forceinline__ V splat(float f) { return __float2half2_rn(f); }
};
template <> struct Packed2<__nv_bfloat16> {
  using V = __nv_bfloat162;
  static __device__ __forceinline__ V of(unsigned w) { return *reinterpret_cast<const V*>(&w); }
  static __device__ __forceinline__ unsigned word(V v) { return *reinterpret_cast<const unsigned*>(&v); }
  static __device__ __forceinline__ V splat(float f) { return __float2bfloat162_rn(f); }
};
template <typename T, typename S, int VEC, Layout GATE>
__device__ __forceinline__ Frag<T, VEC> residual_chunk(const Frag<T, VEC>& rs, const Frag<T, VEC>& xs,
                                                       const Frag<S, VEC>& gs, const Modulation<S, VEC, GATE>& g) {
  constexpr bool k16 = SameType<T, __half>::value || SameType<T, __nv_bfloat16>::value;
  if constexpr (k16 && VEC % 2 == 0 && (GATE == Layout::none || SameType<S, T>::value)) {
    using P = Packed2<T>;
    Frag<T, VEC> out;
#pragma unroll
    for (int w = 0; w < VEC / 2; ++w) {
      const auto r2 = P::of(rs.raw.w[w]), x2 = P::of(xs.raw.w[w]);
      if constexpr (GATE == Layout::none) out.raw.w[w] = P::word(__hadd2(r2, x2));
      else if constexpr (GATE == Layout::scalar) out.raw.w[w] = P::word(__hfma2(P::splat(g.value), x2, r2));
      else out.raw.w[w] = P::word(__hfma2(P::of(gs.raw.w[w]), x2, r2));
    }
    return out;
  } else {
    float r[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i) r[i] = rs[i] + g.at(gs, i) * xs[i];
    return Frag<T, VEC>::pack(r);
  }
}

// 1/c within an ulp, without IEEE division (its slow path is a call that makes ptxas spill
// the cached row around it).
__device__ __forceinline__ float reciprocal(float c) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(c));
  return fmaf(fmaf(-c, r, 1.0f), r, r);  // one Newton step
}

// Sums over the TPR threads of a token, N of them at once (one per token a thread carries, one
// barrier for all); every thread of the token gets the same bits. Reached by every thread of
// the block (tail tokens too). sums_array: N * BLOCK / 32 floats of shared memory, one array per
// call site, so consecutive calls need no barrier between them; its address is taken here, after
// the row loads (taken at the kernel's top, the opaque address held NVVM's address arithmetic
// back and cost up to 17 registers, ITERATIONS.md norm_scale_shift iteration 18).
template <int TPR, int BLOCK, int N>
__device__ __forceinline__ void row_sums(float (&v)[N], const float* sums_array) {
  constexpr int kLanes = TPR < 32 ? TPR : 32;
  // xor offsets below kLanes stay inside the token's aligned group of kLanes lanes.
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2)
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] += __shfl_xor_sync(0xffffffffu, v[j], offset);
  if constexpr (TPR > 32) {
    constexpr int kWarps = BLOCK / 32, kWarpsPerRow = TPR / 32;
    const unsigned warp_sums = shared_address(sums_array);
    if (threadIdx.x % 32 == 0)
#pragma unroll
      for (int j = 0; j < N; ++j) store_shared_f32(warp_sums + 4u * (j * kWarps + threadIdx.x / 32), v[j]);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned mine = warp_sums + 4u * (j * kWarps + (threadIdx.x / TPR) * kWarpsPerRow);
      v[j] = 0.f;
#pragma unroll
      for (int i = 0; i < kWarpsPerRow; ++i) v[j] += load_shared_f32(mine + 4u * i);  // same order in every thread
    }
  }
}

// LayerNorm's mean and sum of squared deviations in one reduction (STATS 1): each thread's
// (mean, m2) over its COUNT elements, merged pairwise by Chan, Golub and LeVeque's update for
// equal counts n: mean = (ma + mb) / 2, m2 = m2a + m2b + (mb - ma)^2 * n / 2. Each step is
// symmetric in a and b, so both partners of a shuffle, and every thread of the token, get the
// same bits; the warps' partials are merged in the same order in every thread. One barrier
// where the two-pass form takes two; as robust as it (no E[x^2] - E[x]^2). Same call contract
// as row_sums; the two arrays each hold N * BLOCK / 32 floats.
template <int TPR, int BLOCK, int N, int COUNT>
__device__ __forceinline__ void row_stats(float (&mean)[N], float (&m2)[N], const float* mean_array,
                                          const float* m2_array) {
  constexpr int kLanes = TPR < 32 ? TPR : 32;
  float half_n = 0.5f * COUNT;  // half the count of each side at this step
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2, half_n *= 2.f)
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const float mb = __shfl_xor_sync(0xffffffffu, mean[j], offset);
      const float m2b = __shfl_xor_sync(0xffffffffu, m2[j], offset);
      const float d = mb - mean[j];
      m2[j] = (m2[j] + m2b) + d * d * half_n;
      mean[j] = 0.5f * (mean[j] + mb);
    }
  if constexpr (TPR > 32) {
    constexpr int kWarps = BLOCK / 32, kWarpsPerRow = TPR / 32;
    constexpr float kWarpCount = 32.f * COUNT;
    const unsigned means = shared_address(mean_array), m2s = shared_address(m2_array);
    if (threadIdx.x % 32 == 0)
#pragma unroll
      for (int j = 0; j < N; ++j) {
        store_shared_f32(means + 4u * (j * kWarps + threadIdx.x / 32), mean[j]);
        store_shared_f32(m2s + 4u * (j * kWarps + threadIdx.x / 32), m2[j]);
      }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned slot = 4u * (j * kWarps + (threadIdx.x / TPR) * kWarpsPerRow);
      mean[j] = load_shared_f32(means + slot);
      m2[j] = load_shared_f32(m2s + slot);
#pragma unroll
      for (int i = 1; i < kWarpsPerRow; ++i) {  // i warps merged so far, one more of the same count
        const float mb = load_shared_f32(means + slot + 4u * i), m2b = load_shared_f32(m2s + slot + 4u * i);
        const float d = mb - mean[j];
        mean[j] += d * (1.0f / (i + 1));
        m2[j] += m2b + d * d * (kWarpCount * i / (i + 1));
      }
    }
  }
}

// The output pass's broadcast inputs of one chunk at column col, read from global memory and folded into
// fp32 factor = w (1 + scale) and offset = b (1 + scale) + shift (w = 1, b = 0 where absent): a staged
// token's output is then norm * factor + offset. EARLY_MOD 4's off-stage tokens and the walk fold here.
template <bool AFFINE, bool BIAS, bool EVICT_FIRST, typename T, typename S, int VEC, Layout MOD>
__device__ __forceinline__ void fold_chunk(Frag<float, VEC>& factor, Frag<float, VEC>& offset, const T* weight,
                                           const T* bias, const Modulation<S, VEC, MOD>& sc,
                                           const Modulation<S, VEC, MOD>& sh, int col) {
  Frag<T, VEC> w, b;
  if constexpr (AFFINE) w = load<T, VEC>(weight + col);
  if constexpr (BIAS) b = load<T, VEC>(bias + col);
  const Frag<S, VEC> s1 = sc.template load_chunk<EVICT_FIRST>(col), s0 = sh.template load_chunk<EVICT_FIRST>(col);
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    const float one_plus = 1.0f + sc.at(s1, i);
    factor.raw.w[i] = __float_as_uint(AFFINE ? w[i] * one_plus : one_plus);
    offset.raw.w[i] = __float_as_uint(BIAS ? fmaf(b[i], one_plus, sh.at(s0, i)) : sh.at(s0, i));
  }
}

// The per-chunk broadcast inputs of the output pass (the absent ones are never set nor read).
template <typename T, typename S, int VEC> struct OutputInputs {
  Frag<T, VEC> w, b;
  Frag<S, VEC> scale, shift;
};

// The whole op for the tokens of this block. RESIDUAL: x_or_res is residual, x is x, gate
// applies; else x_or_res is x and residual_out / gate are unused.
//
// TOKENS: consecutive tokens each thread carries on the same columns, all their rows loaded
// before any arithmetic. A broadcast row (gate, scale, shift) is read once for the thread's
// tokens and read again only where the next token's row is another (a batch or frame boundary;
// every token for [1,L,C] and [B,L,C]). It pays where each token would otherwise wait, after its
// reductions, on several broadcast rows (affine LayerNorm: weight, bias, scale, shift) and the
// grid is one wave (the 512-token text stream); on multi-wave grids L1 already serves those rows
// and the extra registers cost more (ITERATIONS.md, norm_scale_shift iteration 8), but for Wan's
// per-frame fp32 rows (12 KB of scale / shift a 3 KB row): two tokens there, with the staged rows
// (iterations 36, 37). TOKENS = 1 is the one-token kernel of before.
template <typename T, typename S, Norm NORM, Layout MOD, Layout GATE, bool AFFINE, bool RESIDUAL, int BLOCK, int VEC,
          int ROWS_PER_BLOCK, int CHUNKS, int EARLY_MOD, int ROW_CACHE, int TOKENS, int STORE_CS, int STATS, int SURE>
__device__ __forceinline__ void fused_rows(T* __restrict__ y, T* __restrict__ residual_out, const T* __restrict__ x_or_res,
                                           const T* __restrict__ x, const S* __restrict__ gate,
                                           const T* __restrict__ weight, const T* __restrict__ bias,
                                           const S* __restrict__ scale, const S* __restrict__ shift, int B, int L,
                                           int C, int F, float eps) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
  static_assert(BLOCK % ROWS_PER_BLOCK == 0, "BLOCK must split evenly into tokens");
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  static_assert(TPR > 32 ? TPR % 32 == 0 : (TPR & (TPR - 1)) == 0,
                "threads per token: a power of two up to a warp, whole warps above");
  static_assert(CHUNKS >= 1, "CHUNKS >= 1");
  static_assert(TOKENS >= 1, "TOKENS >= 1");
  constexpr bool kBias = AFFINE && NORM == Norm::layer;  // RMSNorm has no bias
  static_assert(ROW_CACHE == 0 || ROW_CACHE == 1, "ROW_CACHE: 0 evict-first, 1 read-only cached");
  constexpr bool kEvictFirst = ROW_CACHE == 0;  // how the row streams are loaded

  // One array per reduction (not one 2-D array: an offset added to the opaque address cost NVRTC's
  // build an instruction nvcc's folded).
  __shared__ float sums_mean[TOKENS * (BLOCK / 32)];
  __shared__ float sums_rstd[TOKENS * (BLOCK / 32)];
  const int lane = threadIdx.x % TPR;
  // Token indices fit in 32 bits (B * L < 2^31; the elements need not): a 64-bit division is
  // a subroutine call, and its calling convention makes ptxas spill around it.
  const int first = (static_cast<int>(blockIdx.x) * ROWS_PER_BLOCK + static_cast<int>(threadIdx.x) / TPR) * TOKENS;
  const int n_chunks = C / VEC;
  // SURE 1: the task's constraint ((CHUNKS - 1) * threads a token * VEC < C) keeps a thread's chunks
  // k < CHUNKS - 1 inside the row on every launch: their bounds tests go (layernorm iteration 12's
  // finding); a launch that breaks the constraint traps instead of reading past the row.
  constexpr int kSure = SURE ? CHUNKS - 1 : 0;
  if constexpr (kSure > 0) {
    if (n_chunks <= kSure * TPR) __trap();
  }
#define in_row(k, c) ((kSure > 0 && (k) < kSure) || (c) < n_chunks)
  // Tail tokens of the last block touch no memory but take part in the reductions' barriers.
  bool token_ok[TOKENS];
  int bs[TOKENS], ls[TOKENS];
  long long base[TOKENS];
#pragma unroll
  for (int j = 0; j < TOKENS; ++j) {
    const int token = first + j;
    token_ok[j] = token < B * L;
    bs[j] = token / L;
    ls[j] = token % L;
    base[j] = static_cast<long long>(token) * C;
  }

  // 0. The first token's scale / shift rows: their chunks staged in shared memory now, ahead of
  // the row loads, when EARLY_MOD 2 (EARLY_MOD 0 and 1 find the rows after the loads, as
  // before: computed here, the row pointers live through the loads and cost registers).
  // EARLY_MOD 3 stages the rows of the block's first token once for the whole block, the block's
  // threads sharing the copy; its tokens whose rows are those (every token of a block inside one
  // frame, batch or [C] row) read them from there, the others from global memory. A per-frame
  // row then crosses from L2 once a block of ROWS_PER_BLOCK tokens instead of once a token.
  // EARLY_MOD 4 stages as 3 and, with them, the weight (and bias) row, then folds the four into
  // two fp32 rows once a block (fold_staged_rows below): the output pass of a staged token reads
  // two rows and does one FMA an element after the normalisation, where affine LayerNorm read
  // four and did four.
  // EARLY_MOD 2 / 3 / 4 with a scalar (or no) modulation has no row to stage: as EARLY_MOD 0.
  constexpr bool kModRows = MOD != Layout::scalar && MOD != Layout::none;
  constexpr int kEarly = EARLY_MOD >= 2 && !kModRows ? 0 : EARLY_MOD;
  static_assert(kEarly >= 0 && kEarly <= 4, "EARLY_MOD: 0 late, 1 registers, 2 / 3 / 4 shared memory");
  constexpr int kModBytes = VEC * static_cast<int>(sizeof(S));
  // EARLY_MOD 2: [chunk][scale, shift][thread]; 3 / 4: [scale, shift][chunk of the row]; kModBytes
  // each; one unused 16-byte slot when nothing is staged.
  constexpr int kRowChunks = CHUNKS * TPR;  // covers the row (the task's constraints)
  __shared__ __align__(16) unsigned char staged[kEarly == 2   ? CHUNKS * 2 * BLOCK * kModBytes
                                                : kEarly >= 3 ? 2 * kRowChunks * kModBytes
                                                              : 16];
  // EARLY_MOD 4: [weight, bias][chunk of the row] in T; the folded rows [factor, offset][chunk] in
  // fp32, over the staged scale / shift where those are fp32 already (each thread folds only the
  // chunks it copied, so in place is safe), else in an array of their own.
  constexpr int kWeightRows = kEarly == 4 && AFFINE ? (kBias ? 2 : 1) : 0;
  constexpr int kWeightBytes = VEC * static_cast<int>(sizeof(T));
  constexpr bool kFoldInPlace = sizeof(S) == sizeof(float);
  constexpr int kFoldBytes = VEC * static_cast<int>(sizeof(float));
  __shared__ __align__(16) unsigned char staged_weight[kWeightRows > 0 ? kWeightRows * kRowChunks * kWeightBytes : 16];
  __shared__ __align__(16) unsigned char folded_own[kEarly == 4 && !kFoldInPlace ? 2 * kRowChunks * kFoldBytes : 16];
  auto staged_at = [&](int k, int which) {
    return shared_address(staged) + ((k * 2 + which) * BLOCK + threadIdx.x) * kModBytes;
  };
  auto block_staged_at = [&](int chunk, int which) {
    return shared_address(staged) + (which * kRowChunks + chunk) * kModBytes;
  };
  auto weight_staged_at = [&](int chunk, int which) {
    return shared_address(staged_weight) + (which * kRowChunks + chunk) * kWeightBytes;
  };
  auto folded_at = [&](int chunk, int which) {
    return kFoldInPlace ? block_staged_at(chunk, which)
                        : shared_address(folded_own) + (which * kRowChunks + chunk) * kFoldBytes;
  };
  if constexpr (kEarly == 2) {
    const Modulation<S, VEC, MOD> sc(scale, bs[0], ls[0], L, C, F), sh(shift, bs[0], ls[0], L, C, F);
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int col = (lane + k * TPR) * VEC;
      if (token_ok[0] && in_row(k, lane + k * TPR)) {
        cp_async_to_shared<kModBytes>(staged_at(k, 0), sc.row + col);
        cp_async_to_shared<kModBytes>(staged_at(k, 1), sh.row + col);
      }
    }
    cp_async_commit();
  }
  // The block's first token (B * L > it: the grid is ceil_div(B * L, tokens a block)).
  const int block_first = static_cast<int>(blockIdx.x) * ROWS_PER_BLOCK * TOKENS;
  if constexpr (kEarly >= 3) {
    const Modulation<S, VEC, MOD> sc(scale, block_first / L, block_first % L, L, C, F),
        sh(shift, block_first / L, block_first % L, L, C, F);
#pragma unroll
    for (int i = 0; i < (kRowChunks + BLOCK - 1) / BLOCK; ++i) {
      const int c = static_cast<int>(threadIdx.x) + i * BLOCK;
      if (c < n_chunks) {
        cp_async_to_shared<kModBytes>(block_staged_at(c, 0), sc.row + c * VEC);
        cp_async_to_shared<kModBytes>(block_staged_at(c, 1), sh.row + c * VEC);
        if constexpr (kWeightRows >= 1) cp_async_to_shared<kWeightBytes>(weight_staged_at(c, 0), weight + c * VEC);
        if constexpr (kWeightRows == 2) cp_async_to_shared<kWeightBytes>(weight_staged_at(c, 1), bias + c * VEC);
      }
    }
    cp_async_commit();
  }

  // 1. The tokens' rows into registers (residual: residual_out computed, rounded and stored).
  Frag<T, VEC> v[TOKENS][CHUNKS];
  if constexpr (RESIDUAL) {
    Frag<T, VEC> rs[TOKENS][CHUNKS], xs[TOKENS][CHUNKS];
    Frag<S, VEC> gs[CHUNKS];  // the gate of the current token's row
    const Modulation<S, VEC, GATE> g0(gate, bs[0], ls[0], L, C, F);
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {  // every load before any arithmetic
      const int c = lane + k * TPR;
#pragma unroll
      for (int j = 0; j < TOKENS; ++j) {
        const bool ok = token_ok[j] && in_row(k, c);
        rs[j][k] = ok ? load<T, VEC, kEvictFirst>(x_or_res + base[j] + c * VEC) : Frag<T, VEC>::zero();
        xs[j][k] = ok ? load<T, VEC, kEvictFirst>(x + base[j] + c * VEC) : Frag<T, VEC>::zero();
      }
      gs[k] = token_ok[0] && in_row(k, c) ? g0.template load_chunk<kEvictFirst>(c * VEC) : Frag<S, VEC>::zero();
    }
#pragma unroll
    for (int j = 0; j < TOKENS; ++j) {
      // Another gate row than the previous token's (a batch or frame boundary inside this
      // thread's tokens): read it now, late; rare where TOKENS divides the frame's tokens.
      const Modulation<S, VEC, GATE> g(gate, bs[j], ls[j], L, C, F);
      const bool reread = j > 0 && g.row != Modulation<S, VEC, GATE>(gate, bs[j - 1], ls[j - 1], L, C, F).row;
#pragma unroll
      for (int k = 0; k < CHUNKS; ++k) {
        const int c = lane + k * TPR;
        const bool ok = token_ok[j] && in_row(k, c);
        if (reread && ok) gs[k] = g.template load_chunk<kEvictFirst>(c * VEC);
        v[j][k] = residual_chunk<T, S, VEC, GATE>(rs[j][k], xs[j][k], gs[k], g0);  // the rounded residual the norm sees
        if (ok) store<STORE_CS != 0>(residual_out + base[j] + c * VEC, v[j][k]);
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * TPR;
#pragma unroll
      for (int j = 0; j < TOKENS; ++j)
        v[j][k] = token_ok[j] && in_row(k, c) ? load<T, VEC, kEvictFirst>(x_or_res + base[j] + c * VEC)
                                              : Frag<T, VEC>::zero();
    }
  }

  // 2. Broadcast inputs of the output pass for the first token, in registers before the
  // reductions when EARLY_MOD 1.
  const Modulation<S, VEC, MOD> sc0(scale, bs[0], ls[0], L, C, F), sh0(shift, bs[0], ls[0], L, C, F);
  OutputInputs<T, S, VEC> in[CHUNKS];
  auto load_inputs = [&](int k) {
    const int col = (lane + k * TPR) * VEC;
    if constexpr (AFFINE) in[k].w = load<T, VEC>(weight + col);
    if constexpr (kBias) in[k].b = load<T, VEC>(bias + col);
    in[k].scale = sc0.template load_chunk<kEvictFirst>(col);
    in[k].shift = sh0.template load_chunk<kEvictFirst>(col);
  };
  if constexpr (kEarly == 1) {
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k)
      if (token_ok[0] && in_row(k, lane + k * TPR)) load_inputs(k);
  }

  // 3. Mean (LayerNorm) and the sum of squares of x - mean (or of x), both from registers: a
  // reduction for each, or with STATS 1 one for both (row_stats) where every lane holds CHUNKS
  // * VEC of the row's elements (C == CHUNKS * TPR * VEC; otherwise the two).
  const float inv_c = reciprocal(static_cast<float>(C));
  const bool one_reduction = NORM == Norm::layer && STATS == 1 && C == kRowChunks * VEC;
  float mean[TOKENS], rstd[TOKENS];
#pragma unroll
  for (int j = 0; j < TOKENS; ++j) {
    mean[j] = 0.f;
    if constexpr (NORM == Norm::layer)
#pragma unroll
      for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
        for (int i = 0; i < VEC; ++i) mean[j] += v[j][k][i];  // padding chunks are zeros
  }
  if constexpr (NORM == Norm::layer) {
    if (one_reduction) {
#pragma unroll
      for (int j = 0; j < TOKENS; ++j) mean[j] *= 1.0f / (CHUNKS * VEC);  // the thread's own mean
    } else {
      row_sums<TPR, BLOCK, TOKENS>(mean, sums_mean);
#pragma unroll
      for (int j = 0; j < TOKENS; ++j) mean[j] *= inv_c;
    }
  }
#pragma unroll
  for (int j = 0; j < TOKENS; ++j) {
    rstd[j] = 0.f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      if (in_row(k, lane + k * TPR)) {  // padding would add mean^2
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          const float d = v[j][k][i] - mean[j];
          rstd[j] += d * d;
        }
      }
    }
  }
  if (one_reduction) row_stats<TPR, BLOCK, TOKENS, CHUNKS * VEC>(mean, rstd, sums_mean, sums_rstd);
  else row_sums<TPR, BLOCK, TOKENS>(rstd, sums_rstd);
#pragma unroll
  for (int j = 0; j < TOKENS; ++j) rstd[j] = rsqrtf(rstd[j] * inv_c + eps);
  // EARLY_MOD 4: fold this thread's chunks of the staged rows once its copies have landed:
  // factor = w * (1 + scale), offset = b * (1 + scale) + shift (w = 1, b = 0 where absent), so
  // that a staged token's output is norm * factor + offset. fp32 throughout; the rounding differs
  // from the unfolded order by a few fp32 ulps, far inside the one rounding to T. Done where
  // EARLY_MOD 3 waits for its copies (after the reductions, which the copies overlap), four
  // elements at a time, one chunk at a time: the rows are live in registers here. The barrier
  // below publishes the folded rows to the block.
  auto fold_staged_rows = [&]() {
    constexpr int kPart = VEC < 4 ? VEC : 4;  // elements folded at once
#pragma unroll 1
    for (int c = static_cast<int>(threadIdx.x); c < n_chunks; c += BLOCK) {
#pragma unroll
      for (int e0 = 0; e0 < VEC; e0 += kPart) {
        const Raw<kPart * static_cast<int>(sizeof(S))> s1 =
            load_shared<kPart * static_cast<int>(sizeof(S))>(block_staged_at(c, 0) + e0 * sizeof(S));
        const Raw<kPart * static_cast<int>(sizeof(S))> s0 =
            load_shared<kPart * static_cast<int>(sizeof(S))>(block_staged_at(c, 1) + e0 * sizeof(S));
        Raw<kPart * static_cast<int>(sizeof(T))> w{}, b{};
        if constexpr (kWeightRows >= 1)
          w = load_shared<kPart * static_cast<int>(sizeof(T))>(weight_staged_at(c, 0) + e0 * sizeof(T));
        if constexpr (kWeightRows == 2)
          b = load_shared<kPart * static_cast<int>(sizeof(T))>(weight_staged_at(c, 1) + e0 * sizeof(T));
        Raw<kPart * 4> factor, offset;
#pragma unroll
        for (int e = 0; e < kPart; ++e) {
          const float one_plus = 1.0f + Codec<S>::get(s1.w, e);
          const float f = kWeightRows >= 1 ? Codec<T>::get(w.w, e) * one_plus : one_plus;
          const float o = kWeightRows == 2 ? fmaf(Codec<T>::get(b.w, e), one_plus, Codec<S>::get(s0.w, e))
                                           : Codec<S>::get(s0.w, e);
          factor.w[e] = __float_as_uint(f);
          offset.w[e] = __float_as_uint(o);
        }
        store_shared<kPart * 4>(folded_at(c, 0) + e0 * 4, factor);
        store_shared<kPart * 4>(folded_at(c, 1) + e0 * 4, offset);
      }
    }
  };
  // Which tokens read the block's staged rows: those whose scale row is the block's first token's.
  bool on_stage[TOKENS] = {};
  if constexpr (kEarly >= 3) {
    const S* staged_row = Modulation<S, VEC, MOD>(scale, block_first / L, block_first % L, L, C, F).row;
#pragma unroll
    for (int j = 0; j < TOKENS; ++j) on_stage[j] = Modulation<S, VEC, MOD>(scale, bs[j], ls[j], L, C, F).row == staged_row;
    cp_async_wait_all();
    if constexpr (kEarly == 4) fold_staged_rows();
    __syncthreads();  // every thread's copies (EARLY_MOD 4: folded) visible to the block
  }
  if (!token_ok[0]) return;  // after the last barrier: safe (a thread's later tokens are past its first)

  // 4. Normalise, modulate, round once, store: chunk by chunk, the thread's tokens in turn on
  // the chunk's broadcast inputs.
  if constexpr (kEarly == 2) cp_async_wait_all();
  if constexpr (kEarly == 4) {
    // Staged tokens: the folded rows. A token whose rows are not the block's first's (a block
    // across a frame or batch boundary; none where ROWS_PER_BLOCK * TOKENS divides the frame):
    // its chunk's factor and offset folded here from weight, bias, scale and shift in global
    // memory, into the same registers, so both kinds of token share one output path (a second,
    // unfolded path cost up to 27 registers, iteration 38). A token reloads only where its row
    // differs from the previous token's.
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * TPR;
      if (!in_row(k, c)) continue;
      const int col = c * VEC;
      Frag<float, VEC> factor, offset;
#pragma unroll
      for (int j = 0; j < TOKENS; ++j) {
        if (!token_ok[j]) break;
        if (on_stage[j]) {
          if (j == 0 || !on_stage[j - 1]) {  // after an off-stage token ([1, L, C] rows recur across batches)
            factor.raw = load_shared<kFoldBytes>(folded_at(c, 0));
            offset.raw = load_shared<kFoldBytes>(folded_at(c, 1));
          }
        } else if (j == 0 || on_stage[j - 1] ||
                   Modulation<S, VEC, MOD>(scale, bs[j], ls[j], L, C, F).row !=
                       Modulation<S, VEC, MOD>(scale, bs[j - 1], ls[j - 1], L, C, F).row) {
          const Modulation<S, VEC, MOD> sc(scale, bs[j], ls[j], L, C, F), sh(shift, bs[j], ls[j], L, C, F);
          fold_chunk<AFFINE, kBias, kEvictFirst>(factor, offset, weight, bias, sc, sh, col);
        }
        float out[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) out[i] = fmaf((v[j][k][i] - mean[j]) * rstd[j], factor[i], offset[i]);
        store<STORE_CS != 0>(y + base[j] + col, Frag<T, VEC>::pack(out));
      }
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = lane + k * TPR;
    if (in_row(k, c)) {
      if constexpr (kEarly == 0) load_inputs(k);
      if constexpr (kEarly >= 2) {  // weight and bias late; scale / shift from the staged copy
        const int col = c * VEC;
        if constexpr (AFFINE) in[k].w = load<T, VEC>(weight + col);
        if constexpr (kBias) in[k].b = load<T, VEC>(bias + col);
        if (kEarly == 2 || on_stage[0]) {
          in[k].scale.raw = load_shared<kModBytes>(kEarly == 2 ? staged_at(k, 0) : block_staged_at(c, 0));
          in[k].shift.raw = load_shared<kModBytes>(kEarly == 2 ? staged_at(k, 1) : block_staged_at(c, 1));
        } else {  // EARLY_MOD 3, a token of another row than the block's first
          in[k].scale = sc0.template load_chunk<kEvictFirst>(col);
          in[k].shift = sh0.template load_chunk<kEvictFirst>(col);
        }
      }
      Frag<S, VEC> scale_k = in[k].scale, shift_k = in[k].shift;
#pragma unroll
      for (int j = 0; j < TOKENS; ++j) {
        if (!token_ok[j]) break;
        if (kEarly == 3 && j > 0 && on_stage[j]) {  // the staged rows again (after another token's)
          scale_k.raw = load_shared<kModBytes>(block_staged_at(c, 0));
          shift_k.raw = load_shared<kModBytes>(block_staged_at(c, 1));
        } else if (j > 0) {
          // The scale / shift row changes at a batch or frame boundary, and every token for
          // the per-token layouts; within a row, the registers serve.
          const Modulation<S, VEC, MOD> sc(scale, bs[j], ls[j], L, C, F), sh(shift, bs[j], ls[j], L, C, F);
          if (sc.row != Modulation<S, VEC, MOD>(scale, bs[j - 1], ls[j - 1], L, C, F).row) {
            scale_k = sc.template load_chunk<kEvictFirst>(c * VEC);
            shift_k = sh.template load_chunk<kEvictFirst>(c * VEC);
          }
        }
        float out[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          float n = (v[j][k][i] - mean[j]) * rstd[j];
          if constexpr (AFFINE) n *= in[k].w[i];
          if constexpr (kBias) n += in[k].b[i];
          out[i] = n * (1.0f + sc0.at(scale_k, i)) + sh0.at(shift_k, i);  // a row's chunk, or the scalar
        }
        store<STORE_CS != 0>(y + base[j] + c * VEC, Frag<T, VEC>::pack(out));
      }
    }
  }
}

// A row stream's chunk (x, or residual) into shared memory for the walk below: 16-byte pieces by
// cp.async.cg (L2 only: the row is read once), smaller ones by .ca (cp.async.cg moves 16 bytes only).
template <int BYTES> __device__ __forceinline__ void cp_async_stream_to_shared(unsigned s, const void* global) {
  if constexpr (BYTES % 16 == 0) {
#pragma unroll
    for (int i = 0; i < BYTES / 16; ++i)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s + i * 16),
                   "l"(static_cast<const char*>(global) + i * 16) : "memory");
  } else {
    cp_async_to_shared<BYTES>(s, global);
  }
}
template <int N> __device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// The first token past `token` whose row of a broadcast tensor of layout M differs from token's (tokens
// are walked in order, so one division a row change instead of one a token): the next batch for [B, C],
// the next frame or batch for [B, F, 1, C], the next token for the per-token layouts, none (tokens) for
// [1], [C] and an absent tensor.
template <Layout M> __device__ __forceinline__ int next_row_of(int token, int b, int l, int L, int F, int tokens) {
  if constexpr (M == Layout::bc) return (b + 1) * L;
  else if constexpr (M == Layout::bf1c) return b * L + min((l / (L / F) + 1) * (L / F), L);
  else if constexpr (M == Layout::lc || M == Layout::blc) return token + 1;
  else return tokens;
}

#undef in_row
// WALK > 1 (TOKENS 1): each group of TPR threads walks WALK consecutive tokens in turn, so a block meets
// one frame's (or batch's) broadcast rows once for ROWS_PER_BLOCK * WALK tokens; they are folded once into
// fp32 factor = w (1 + scale) and offset = b (1 + scale) + shift in registers (the gate's row too, for the
// residual fusion), again only where a token's rows differ from the previous one's: a frame or batch
// boundary, or every token for [1, L, C] and [B, L, C]. The loop alone lost (ITERATIONS.md norm_scale_shift
// iteration 3: a token's loads waited on the previous token's arithmetic), so the row streams (x; residual
// and x) run DEPTH tokens ahead by cp.async into a ring in shared memory, each thread copying and reading
// back only its own chunks (no barrier for the ring; a stage is refilled after the values read from it
// were consumed). The bytes in flight then no longer hang on the registers. The reductions' arrays
// alternate by token: one barrier a reduction. RESIDUAL: x_or_res is residual, x is x, as in fused_rows.
template <typename T, typename S, Norm NORM, Layout MOD, Layout GATE, bool AFFINE, bool RESIDUAL, int BLOCK, int VEC,
          int ROWS_PER_BLOCK, int CHUNKS, int STORE_CS, int STATS, int WALK, int DEPTH, int SURE>
__device__ __forceinline__ void walked_rows(T* __restrict__ y, T* __restrict__ residual_out, const T* __restrict__ x_or_res,
                                            const T* __restrict__ x, const S* __restrict__ gate,
                                            const T* __restrict__ weight, const T* __restrict__ bias,
                                            const S* __restrict__ scale, const S* __restrict__ shift, int B, int L,
                                            int C, int F, float eps) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 1024");
  static_assert(BLOCK % ROWS_PER_BLOCK == 0, "BLOCK must split evenly into tokens");
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  static_assert(TPR > 32 ? TPR % 32 == 0 : (TPR & (TPR - 1)) == 0,
                "threads per token: a power of two up to a warp, whole warps above");
  static_assert(DEPTH >= 1 && DEPTH <= WALK, "DEPTH: tokens copied ahead, 1 .. WALK");
  constexpr bool kBias = AFFINE && NORM == Norm::layer;
  constexpr bool kGate = RESIDUAL && GATE != Layout::none;
  constexpr int kStreams = RESIDUAL ? 2 : 1;  // residual and x, or x
  constexpr int kBytes = VEC * static_cast<int>(sizeof(T));
  static_assert(kBytes == 4 || kBytes == 8 || kBytes % 16 == 0, "cp.async moves 4, 8 or 16*k bytes: VEC >= 2");
  static_assert(DEPTH * kStreams * CHUNKS * BLOCK * kBytes <= 40960, "the ring: at most 40 KB of static shared memory");
  constexpr int kWarps = BLOCK / 32;
  __shared__ __align__(16) unsigned char ring[DEPTH * kStreams * CHUNKS * BLOCK * kBytes];  // [stage][stream][chunk][thread]
  __shared__ float walk_mean[2 * kWarps];
  __shared__ float walk_m2[2 * kWarps];
  const int lane = threadIdx.x % TPR;
  const int first = (static_cast<int>(blockIdx.x) * ROWS_PER_BLOCK + static_cast<int>(threadIdx.x) / TPR) * WALK;
  const int n_chunks = C / VEC;
  // SURE 1: the task's constraint ((CHUNKS - 1) * threads a token * VEC < C) keeps a thread's chunks
  // k < CHUNKS - 1 inside the row on every launch: their bounds tests go (layernorm iteration 12's
  // finding); a launch that breaks the constraint traps instead of reading past the row.
  constexpr int kSure = SURE ? CHUNKS - 1 : 0;
  if constexpr (kSure > 0) {
    if (n_chunks <= kSure * TPR) __trap();
  }
#define in_row(k, c) ((kSure > 0 && (k) < kSure) || (c) < n_chunks)
  const int tokens = B * L;
  auto slot = [&](int stage, int stream, int k) {
    return shared_address(ring) + (((stage * kStreams + stream) * CHUNKS + k) * BLOCK + threadIdx.x) * kBytes;
  };
  // Token first + t's chunks into stage t % DEPTH; one commit group a token, empty past the walk,
  // so that the wait below counts groups the same in every iteration.
  auto issue = [&](int t) {
    const int token = first + t;
    if (t < WALK && token < tokens) {
#pragma unroll
      for (int k = 0; k < CHUNKS; ++k) {
        const int c = lane + k * TPR;
        if (in_row(k, c)) {
          const long long at = static_cast<long long>(token) * C + c * VEC;
          cp_async_stream_to_shared<kBytes>(slot(t % DEPTH, 0, k), x_or_res + at);
          if constexpr (RESIDUAL) cp_async_stream_to_shared<kBytes>(slot(t % DEPTH, 1, k), x + at);
        }
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int t = 0; t < DEPTH; ++t) issue(t);

  const float inv_c = reciprocal(static_cast<float>(C));
  const bool one_reduction = NORM == Norm::layer && STATS == 1 && C == CHUNKS * TPR * VEC;
  Frag<float, VEC> factor[CHUNKS], offset[CHUNKS];
  Frag<S, VEC> gates[CHUNKS];  // the gate's row (residual fusion with a gate)
  int next_row = 0;  // the first token past the folded rows
#pragma unroll 1
  for (int t = 0; t < WALK; ++t) {
    const int token = first + t;
    const bool ok = token < tokens;
    // The broadcast rows folded again where this token's differ from the previous token's.
    if (ok && (t == 0 || token >= next_row)) {
      const int b = token / L, l = token % L;
      next_row = next_row_of<MOD>(token, b, l, L, F, tokens);
      if constexpr (kGate) next_row = min(next_row, next_row_of<GATE>(token, b, l, L, F, tokens));
      const Modulation<S, VEC, MOD> sc(scale, b, l, L, C, F), sh(shift, b, l, L, C, F);
#pragma unroll
      for (int k = 0; k < CHUNKS; ++k) {
        const int c = lane + k * TPR;
        if (!in_row(k, c)) continue;
        const int col = c * VEC;
        fold_chunk<AFFINE, kBias, false>(factor[k], offset[k], weight, bias, sc, sh, col);
        if constexpr (kGate) gates[k] = Modulation<S, VEC, GATE>(gate, b, l, L, C, F).template load_chunk<false>(col);
      }
    }

    cp_async_wait_group<DEPTH - 1>();  // token t's copies have landed (this thread's own)
    Frag<T, VEC> v[CHUNKS];
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * TPR;
      if constexpr (RESIDUAL) {
        // residual_out = residual + gate * x, rounded to T: the value the norm sees, stored now.
        if (!ok || !in_row(k, c)) {
          v[k] = Frag<T, VEC>::zero();
          continue;
        }
        const Frag<T, VEC> rs{load_shared<kBytes>(slot(t % DEPTH, 0, k))}, xs{load_shared<kBytes>(slot(t % DEPTH, 1, k))};
        float r[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) r[i] = rs[i] + (kGate ? gates[k][i] : 1.0f) * xs[i];
        v[k] = Frag<T, VEC>::pack(r);
        store<STORE_CS != 0>(residual_out + static_cast<long long>(token) * C + c * VEC, v[k]);
      } else {
        v[k] = ok && in_row(k, c) ? Frag<T, VEC>{load_shared<kBytes>(slot(t % DEPTH, 0, k))} : Frag<T, VEC>::zero();
      }
    }

    // Mean and sum of squared deviations as fused_rows does for one token.
    const int parity = (t & 1) * kWarps;
    float mean[1] = {0.f}, m2[1] = {0.f};
    if constexpr (NORM == Norm::layer) {
#pragma unroll
      for (int k = 0; k < CHUNKS; ++k)
#pragma unroll
        for (int i = 0; i < VEC; ++i) mean[0] += v[k][i];  // padding chunks are zeros
      if (one_reduction) {
        mean[0] *= 1.0f / (CHUNKS * VEC);
      } else {
        row_sums<TPR, BLOCK, 1>(mean, walk_mean + parity);
        mean[0] *= inv_c;
      }
    }
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k)
      if (in_row(k, lane + k * TPR))
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
          const float d = v[k][i] - mean[0];
          m2[0] += d * d;
        }
    if (one_reduction) row_stats<TPR, BLOCK, 1, CHUNKS * VEC>(mean, m2, walk_mean + parity, walk_m2 + parity);
    else row_sums<TPR, BLOCK, 1>(m2, walk_m2 + parity);
    const float rstd = rsqrtf(m2[0] * inv_c + eps);

    issue(t + DEPTH);  // into the stage just read: its values are in registers and consumed above

    if (!ok) continue;  // still walks on: the barriers above are the block's
    const long long base = static_cast<long long>(token) * C;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
      const int c = lane + k * TPR;
      if (!in_row(k, c)) continue;
      float out[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) out[i] = fmaf((v[k][i] - mean[0]) * rstd, factor[k][i], offset[k][i]);
      store<STORE_CS != 0>(y + base + c * VEC, Frag<T, VEC>::pack(out));
    }
  }
}

#undef in_row
}  // namespace nss_detail

// MIN_BLOCKS (0 / 1) is __launch_bounds__'s second argument. With none (0) ptxas caps a
// 128-thread block at 64 registers, and norm_scale_shift's C = 5120 point (128 threads, 5
// chunks of 8) spilled 4 bytes there in its per-frame form; with 1 it takes the 71 it needs
// (7 blocks per SM) and is the fastest point for wan14b on the H200 (ITERATIONS.md,
// norm_scale_shift iteration 2). Tuned, so the other widths keep the cap where it pays.
// A larger value pins an occupancy: 20 blocks of 64 threads caps the registers at 48, 6 of 256
// at 40 (Wan's fp32 per-frame affine RMSNorm, iteration 23), and in the residual fusion 10 of
// 128 at 48 (its fp32 per-frame RMSNorm, iteration 24) and 8 of 128 at 64 (its fp32 per-frame
// affine LayerNorm, iteration 27); 10 of 64 gives the walk 91-92 registers and a fifth warp a
// scheduler (wan13b's per-frame LayerNorm, iteration 45). The 20 came
// in when nvcc's build (what `ako port` ships) still took 54 where NVRTC's took 48
// (norm_scale_shift iteration 17); since iteration 18 both compilers emit the same code, and
// the pin keeps the count the class was measured at.
template <typename T, typename S, Norm NORM, Layout MOD, bool AFFINE, int BLOCK, int VEC, int ROWS_PER_BLOCK,
          int CHUNKS, int EARLY_MOD, int MIN_BLOCKS = 0, int ROW_CACHE = 0, int TOKENS = 1, int STORE_CS = 1,
          int STATS = 0, int WALK = 1, int DEPTH = 1, int SURE = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
norm_scale_shift_kernel(T* __restrict__ y, const T* __restrict__ x, const T* __restrict__ weight,
                        const T* __restrict__ bias, const S* __restrict__ scale, const S* __restrict__ shift, int B,
                        int L, int C, int F, float eps) {
  static_assert(WALK == 1 || TOKENS == 1, "WALK > 1 walks one token a group at a time: TOKENS 1");
  if constexpr (WALK > 1)
    nss_detail::walked_rows<T, S, NORM, MOD, Layout::none, AFFINE, false, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS, STORE_CS, STATS, WALK, DEPTH, SURE>(
        y, nullptr, x, nullptr, nullptr, weight, bias, scale, shift, B, L, C, F, eps);
  else
    nss_detail::fused_rows<T, S, NORM, MOD, Layout::none, AFFINE, false, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS, EARLY_MOD, ROW_CACHE, TOKENS, STORE_CS, STATS, SURE>(
        y, nullptr, x, nullptr, nullptr, weight, bias, scale, shift, B, L, C, F, eps);
}

template <typename T, typename S, Norm NORM, Layout MOD, Layout GATE, bool AFFINE, int BLOCK, int VEC,
          int ROWS_PER_BLOCK, int CHUNKS, int EARLY_MOD, int MIN_BLOCKS = 0, int ROW_CACHE = 0, int TOKENS = 1, int STORE_CS = 1,
          int STATS = 0, int WALK = 1, int DEPTH = 1, int SURE = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
residual_gate_norm_scale_shift_kernel(T* __restrict__ y, T* __restrict__ residual_out, const T* __restrict__ residual,
                                      const T* __restrict__ x, const S* __restrict__ gate,
                                      const T* __restrict__ weight, const T* __restrict__ bias,
                                      const S* __restrict__ scale, const S* __restrict__ shift, int B, int L, int C,
                                      int F, float eps) {
  static_assert(WALK == 1 || TOKENS == 1, "WALK > 1 walks one token a group at a time: TOKENS 1");
  if constexpr (WALK > 1)
    nss_detail::walked_rows<T, S, NORM, MOD, GATE, AFFINE, true, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS, STORE_CS, STATS, WALK, DEPTH, SURE>(
        y, residual_out, residual, x, gate, weight, bias, scale, shift, B, L, C, F, eps);
  else
    nss_detail::fused_rows<T, S, NORM, MOD, GATE, AFFINE, true, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS, EARLY_MOD, ROW_CACHE, TOKENS, STORE_CS, STATS, SURE>(
        y, residual_out, residual, x, gate, weight, bias, scale, shift, B, L, C, F, eps);
}
