#pragma once
// QK RMSNorm in place, the fast candidate. Same math as input/qknorm/qknorm.cuh (fp32 sum of
// squares, x * rsqrt(sum / len + eps) * w, one rounding), on q [N, Hq, D] and k [N, Hk, D] inside
// the packed qkv row of `stride` elements (context/qknorm.md).
//
//   template <T, HEAD_DIM, ACROSS, VEC, BLOCK, GROUP, ROWS, AGROUP, AROWS, CHUNKS, STORE_CS>
//   grid = ceil_div(N * (NQ + NK), BLOCK / G * R), block = BLOCK, no dynamic shared memory
//   (NQ = ACROSS ? 1 : Hq rows of q per token, NK likewise for k; G, R = GROUP, ROWS per head,
//   AGROUP, AROWS across heads).
// Each form has its own group width and rows in flight (GROUP, ROWS per head; AGROUP, AROWS and
// CHUNKS across heads), the access width VEC and BLOCK shared: one config point (one class of
// a shape, which runs both forms) then holds a good choice for each form, and `ako tune` can
// search them together. The other form's parameters are ignored.
//
// Work: the rows of a token are its q rows then its k rows (per head: Hq + Hk rows of HEAD_DIM;
// across heads: one q row of Hq * HEAD_DIM and one k row of Hk * HEAD_DIM). Row g is token g / (NQ + NK). A group of
// GROUP consecutive threads owns a row; a block holds BLOCK / GROUP groups and each group takes
// ROWS rows, g = (blockIdx.x * ROWS + i) * GROUPS + group, so at every step a block's groups touch
// consecutive rows (the heads of a token are contiguous: coalesced 16-byte accesses).
// Why it is fast on a memory-bound op:
// - every chunk of all ROWS rows is loaded before any reduction (ROWS * CHUNKS independent VEC-wide
//   loads in flight per thread) and kept in registers for the store: each element crosses DRAM
//   once each way; the weight ([D] or [H * D], L1/L2-resident) is loaded with x where its chunks
//   fit in 12 registers, else at the store;
// - nothing slow between a row's loads and its stores: per head the mean is a multiply by the
//   exact 1 / HEAD_DIM, and the store one 16-byte access (ITERATIONS.md qknorm iteration 8);
// - compile-time HEAD_DIM (SGLang's JIT builds one module per head_dim too): a per-head row's length
//   and chunk count are static; heads are run-time, as in the engine, so one build serves every model;
// - reductions are shuffles inside the group; a group wider than a warp adds one shared-memory
//   exchange and one __syncthreads.
// Requirements: HEAD_DIM % VEC == 0 (then every row starts VEC-aligned), q, k, weights aligned to
// VEC * sizeof(T) bytes, stride a multiple of VEC.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace qknorm_detail {

// 16-bit float <-> fp32 on packed pairs: element 2i is the low half of word i.
template <typename T> struct Codec;

template <> struct Codec<__nv_bfloat16> {
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

// VEC consecutive 16-bit elements as one VEC * 2-byte access (VEC in 2, 4, 8).
template <int VEC> struct Chunk {
  static_assert(VEC == 2 || VEC == 4 || VEC == 8, "VEC must be 2, 4 or 8");
  unsigned w[VEC / 2];
};

// q and k are read and written here, so plain loads (not the read-only path) for them.
template <int VEC> __device__ __forceinline__ Chunk<VEC> load(const void* p) {
  Chunk<VEC> c;
  if constexpr (VEC == 8) {
    const uint4 r = *static_cast<const uint4*>(p);
    c.w[0] = r.x; c.w[1] = r.y; c.w[2] = r.z; c.w[3] = r.w;
  } else if constexpr (VEC == 4) {
    const uint2 r = *static_cast<const uint2*>(p);
    c.w[0] = r.x; c.w[1] = r.y;
  } else {
    c.w[0] = *static_cast<const unsigned*>(p);
  }
  return c;
}

// The weights are never written: read-only path.
template <int VEC> __device__ __forceinline__ Chunk<VEC> load_weight(const void* p) {
  Chunk<VEC> c;
  if constexpr (VEC == 8) {
    const uint4 r = __ldg(static_cast<const uint4*>(p));
    c.w[0] = r.x; c.w[1] = r.y; c.w[2] = r.z; c.w[3] = r.w;
  } else if constexpr (VEC == 4) {
    const uint2 r = __ldg(static_cast<const uint2*>(p));
    c.w[0] = r.x; c.w[1] = r.y;
  } else {
    c.w[0] = __ldg(static_cast<const unsigned*>(p));
  }
  return c;
}

// Streaming (st.global.cs, evict-first: nothing here reads the result again) or plain write-back
// stores: plain ones are 1-3% faster on the long video shapes, streaming ones on flux1 (H200;
// STORE_CS, a parameter: ITERATIONS.md qknorm iteration 3).
// WIDE: the plain store written as __stwb (st.global.wb, the same write-back policy). From the C++
// store `*p = v` NVVM emits four 32-bit stores for each 16-byte chunk of this kernel (NVRTC and nvcc
// alike); __stwb keeps it one 16-byte store. Per head that ran 0.2-1.2% faster on the H200; the
// across-heads kernels gained nothing and their 3-chunk form took 8 more registers and ran 1% slower,
// so they keep the C++ store (ITERATIONS.md qknorm iteration 8).
template <bool CS, bool WIDE, typename V> __device__ __forceinline__ void store_one(V* p, V v) {
  if constexpr (CS) __stcs(p, v);
  else if constexpr (WIDE) __stwb(p, v);
  else *p = v;
}
template <int VEC, bool CS, bool WIDE> __device__ __forceinline__ void store(void* p, const Chunk<VEC>& c) {
  if constexpr (VEC == 8) {
    store_one<CS, WIDE>(static_cast<uint4*>(p), make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]));
  } else if constexpr (VEC == 4) {
    store_one<CS, WIDE>(static_cast<uint2*>(p), make_uint2(c.w[0], c.w[1]));
  } else {
    store_one<CS, WIDE>(static_cast<unsigned*>(p), c.w[0]);
  }
}

// Shared memory through 32-bit addresses in inline PTX, as in solution/norm_scale_shift: nvcc
// (SGLang's JIT, where `ako port` ships this file) keeps shared-memory pointers in 32 bits and
// NVRTC (where ako measures it) in 64, and the across-heads kernels (a group wider than a warp:
// the partial sums' exchange) came out as different machine code from the two compilers, same
// registers (scripts/sglang-port-check.sh, 2026-11-30: 10 of 20 kernels). Written out, both emit
// the same accesses. volatile and "memory": kept in order around the barrier.
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

}  // namespace qknorm_detail

// One form's rows (the kernel below passes its parameters).
template <typename T, int HEAD_DIM, bool ACROSS, int VEC, int GROUP, int BLOCK, int ROWS, int CHUNKS, bool STORE_CS>
__device__ __forceinline__ void qknorm_rows(T* q, T* k, const T* q_weight, const T* k_weight, int N, int Hq, int Hk,
                                            long long stride, float eps) {
  using namespace qknorm_detail;
  static_assert(GROUP > 0 && (GROUP & (GROUP - 1)) == 0 && BLOCK % GROUP == 0, "GROUP: a power of two dividing BLOCK");
  static_assert(HEAD_DIM % VEC == 0, "HEAD_DIM must be a multiple of VEC");
  // Per head a row is HEAD_DIM long (compile time); across heads Hq * HEAD_DIM or Hk * HEAD_DIM, at
  // most CHUNKS accesses per lane (the task's constraints).
  constexpr int kChunks = ACROSS ? CHUNKS : (HEAD_DIM + GROUP * VEC - 1) / (GROUP * VEC);
  constexpr int kGroups = BLOCK / GROUP;
  constexpr int kWarpsPerGroup = GROUP > 32 ? GROUP / 32 : 1;
  const unsigned rows_q = ACROSS ? 1u : static_cast<unsigned>(Hq);
  const unsigned rows_per_token = ACROSS ? 2u : static_cast<unsigned>(Hq + Hk);
  const int len_q = ACROSS ? Hq * HEAD_DIM : HEAD_DIM, len_k = ACROSS ? Hk * HEAD_DIM : HEAD_DIM;

  const int group = threadIdx.x / GROUP, lane = threadIdx.x % GROUP;
  const unsigned total = static_cast<unsigned>(N) * rows_per_token;  // < 2^31 (constraint)

  // The weight's chunks are loaded with x where they take at most 12 registers (every H200 class:
  // 0.3-2.9% faster, iteration 8), else read at the store as before (a 1024-thread block's
  // 64-register budget spilled with 16).
  constexpr bool kWeightEarly = ROWS * kChunks * (VEC / 2) <= 12;
  Chunk<VEC> x[ROWS][kChunks];
  Chunk<VEC> w_early[ROWS][kWeightEarly ? kChunks : 1];
  T* base[ROWS];
  int len[ROWS];
  bool q_row[ROWS];
  float sum[ROWS];
  float inv_len[ROWS];  // across heads: 1 / len, computed while the loads are in flight
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    const unsigned g = (blockIdx.x * ROWS + i) * kGroups + group;
    const unsigned token = g / rows_per_token;
    const unsigned r = g - token * rows_per_token;
    q_row[i] = r < rows_q;
    // rows past the end read nothing and store nothing, but still join every reduction
    len[i] = g < total ? (q_row[i] ? len_q : len_k) : 0;
    if constexpr (ACROSS) inv_len[i] = 1.0f / static_cast<float>(q_row[i] ? len_q : len_k);
    base[i] = (q_row[i] ? q : k) + static_cast<long long>(token) * stride +
              static_cast<long long>(q_row[i] ? r : r - rows_q) * HEAD_DIM;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int e = (c * GROUP + lane) * VEC;
      if (e < len[i]) {
        x[i][c] = load<VEC>(base[i] + e);
        if constexpr (kWeightEarly) w_early[i][c] = load_weight<VEC>((q_row[i] ? q_weight : k_weight) + e);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      if ((c * GROUP + lane) * VEC < len[i]) {
#pragma unroll
        for (int j = 0; j < VEC / 2; ++j) {
          const float a = Codec<T>::lo(x[i][c].w[j]), b = Codec<T>::hi(x[i][c].w[j]);
          s += a * a;
          s += b * b;
        }
      }
    sum[i] = s;
  }
  // Sum over the group: xor offsets below min(GROUP, 32) stay inside the group's aligned lanes.
#pragma unroll
  for (int i = 0; i < ROWS; ++i)
#pragma unroll
    for (int o = (GROUP < 32 ? GROUP : 32) / 2; o > 0; o /= 2) sum[i] += __shfl_xor_sync(0xffffffffu, sum[i], o);
  if constexpr (kWarpsPerGroup > 1) {
    __shared__ float partial[ROWS * (BLOCK / 32)];  // [row][warp]
    const unsigned base_addr = shared_address(partial);
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
#pragma unroll
      for (int i = 0; i < ROWS; ++i) store_shared_f32(base_addr + 4u * (i * (BLOCK / 32) + warp), sum[i]);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
      float t = 0.f;
#pragma unroll
      for (int w = 0; w < kWarpsPerGroup; ++w)
        t += load_shared_f32(base_addr + 4u * (i * (BLOCK / 32) + group * kWarpsPerGroup + w));
      sum[i] = t;
    }
  }
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    if (len[i] == 0) continue;
    // Per head the mean is sum * (1 / HEAD_DIM), without the full fp32 division on the way from the
    // loads to the stores (~1% per head on the video shapes, iteration 8); the same value as
    // sum / HEAD_DIM for a power-of-two HEAD_DIM (every head_dim SGLang builds, 64-1024), within an ulp
    // otherwise. Across heads the length is known at run time only: divided.
    const float mean_sq = ACROSS ? sum[i] * inv_len[i] : sum[i] * (1.0f / HEAD_DIM);
    const float inv = rsqrtf(mean_sq + eps);
    const T* w = q_row[i] ? q_weight : k_weight;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int e = (c * GROUP + lane) * VEC;
      if (e < len[i]) {
        Chunk<VEC> wc;
        if constexpr (kWeightEarly) wc = w_early[i][c];
        else wc = load_weight<VEC>(w + e);
        Chunk<VEC> y;
#pragma unroll
        for (int j = 0; j < VEC / 2; ++j)
          y.w[j] = Codec<T>::pack(Codec<T>::lo(x[i][c].w[j]) * inv * Codec<T>::lo(wc.w[j]),
                                  Codec<T>::hi(x[i][c].w[j]) * inv * Codec<T>::hi(wc.w[j]));
        store<VEC, STORE_CS, !ACROSS>(base[i] + e, y);
      }
    }
  }
}

template <typename T, int HEAD_DIM, bool ACROSS, int VEC, int BLOCK, int GROUP, int ROWS, int AGROUP, int AROWS,
          int CHUNKS, int STORE_CS = 1>
__global__ void __launch_bounds__(BLOCK) qknorm_kernel(T* q, T* k, const T* q_weight, const T* k_weight, int N, int Hq,
                                                       int Hk, long long stride, float eps) {
  if constexpr (ACROSS)
    qknorm_rows<T, HEAD_DIM, true, VEC, AGROUP, BLOCK, AROWS, CHUNKS, STORE_CS != 0>(q, k, q_weight, k_weight, N, Hq, Hk, stride, eps);
  else
    qknorm_rows<T, HEAD_DIM, false, VEC, GROUP, BLOCK, ROWS, 1, STORE_CS != 0>(q, k, q_weight, k_weight, N, Hq, Hk, stride, eps);
}
