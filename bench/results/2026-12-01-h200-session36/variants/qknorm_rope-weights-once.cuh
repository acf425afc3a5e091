#pragma once
// Fused QK-norm + RoPE in place, the fast candidate. Same math as
// input/qknorm_rope/qknorm_rope.cuh: per head, r = rsqrt(mean(x^2) + eps), y = x * r * w, RoPE on
// y with the fp32 cache row of the token's position (interleaved or NeoX pairs, elements R..D-1
// pass through the norm only), all in fp32, one rounding per element.
//
//   template <T, IdT, NEOX, LANES, EPL, HPG, BLOCK, REGS, SPLIT, PIPE, ASYNC>, the reference's arguments
//   grid = SPLIT == 0 ? ceil_div(N * 2 * H, (BLOCK / LANES) * HPG) : ceil_div(N * SPLIT, BLOCK / LANES),
//   block = BLOCK; LANES * EPL == D.
//
// Layout of the work: a group of LANES consecutive lanes (16 or 32: a half or a whole warp)
// holds one head, EPL consecutive elements per lane (EPL = 8: one 16-byte access), and takes
// HPG heads of the flattened (token, q heads then k heads) order one after the other, all HPG
// heads loaded before the first is reduced (HPG independent loads in flight per lane); the
// cos/sin slice of their token is loaded once, right after them, and reused from registers.
// - the sum of squares is a butterfly of shuffles inside the group;
// - interleaved pairs lie inside a lane; NeoX partners are the lane (R / 2) / EPL away, one
//   shuffle per element;
// - the weights (the same D values for every head) and the cos/sin slice are read through the
//   read-only path: L1 hits after the first group of a token;
// - q and k are read and written once, with 16-byte (EPL = 8) accesses.
// With SPLIT > 0 the work is cut by token instead: SPLIT groups share a token, group s takes
// its heads s, s + SPLIT, s + 2 SPLIT, ... (q heads then k heads), HPG of them loaded per step;
// the token's position and cos/sin slice are loaded once per group and kept in registers for
// all its steps (with SPLIT = 0 every group of HPG heads fetches them again, mostly from L2);
// PIPE = 1 issues a step's loads before the step before it is reduced (SPLIT = 0: PIPE = 0).
// ASYNC = A > 0 (SPLIT > 0, PIPE = 0) copies each step's chunks by cp.async into a ring of
// A + 1 shared-memory slots per thread, A steps ahead: A steps' loads in flight per lane while a
// step is reduced, none of them held in registers (PIPE holds one step's in registers). A
// thread reads back only its own copies, so no barrier is needed.
// Requirements (the task's constraints): bf16 or fp16; LANES * EPL == D; R % EPL == 0 and, for
// NeoX, (R / 2) % EPL == 0 (a lane is all rotated or all passed through; partners whole lanes);
// q / k / weights aligned to EPL * 2 bytes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace qknorm_rope_detail {

// 16-bit float <-> fp32 on packed pairs: element 2m is the low half of word m.
template <typename T> struct Codec;

template <> struct Codec<__nv_bfloat16> {
  static __device__ __forceinline__ float lo(unsigned w) { return __uint_as_float(w << 16); }
  static __device__ __forceinline__ float hi(unsigned w) { return __uint_as_float(w & 0xffff0000u); }
  static __device__ __forceinline__ unsigned pack(float lo, float hi) {
    unsigned w;
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

// EPL 16-bit elements as EPL / 2 words, one access of EPL * 2 bytes.
template <int EPL> struct Chunk {
  static_assert(EPL == 2 || EPL == 4 || EPL == 8, "EPL must be 2, 4 or 8");
  unsigned w[EPL / 2];
};

template <int EPL, bool READ_ONLY> __device__ __forceinline__ Chunk<EPL> load(const void* p) {
  Chunk<EPL> c;
  if constexpr (EPL == 8) {
    const uint4 v = READ_ONLY ? __ldg(static_cast<const uint4*>(p)) : *static_cast<const uint4*>(p);
    c.w[0] = v.x, c.w[1] = v.y, c.w[2] = v.z, c.w[3] = v.w;
  } else if constexpr (EPL == 4) {
    const uint2 v = READ_ONLY ? __ldg(static_cast<const uint2*>(p)) : *static_cast<const uint2*>(p);
    c.w[0] = v.x, c.w[1] = v.y;
  } else {
    c.w[0] = READ_ONLY ? __ldg(static_cast<const unsigned*>(p)) : *static_cast<const unsigned*>(p);
  }
  return c;
}

template <int EPL> __device__ __forceinline__ void store(void* p, const Chunk<EPL>& c) {
  if constexpr (EPL == 8) {
    *static_cast<uint4*>(p) = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
  } else if constexpr (EPL == 4) {
    *static_cast<uint2*>(p) = make_uint2(c.w[0], c.w[1]);
  } else {
    *static_cast<unsigned*>(p) = c.w[0];
  }
}

// N consecutive fp32 values through the read-only path, as one access of N * 4 bytes where
// N is 2 or 4 (8: two accesses).
template <int N> __device__ __forceinline__ void load_f32(const float* p, float* out) {
  if constexpr (N == 8) {
    load_f32<4>(p, out), load_f32<4>(p + 4, out + 4);
  } else if constexpr (N == 4) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else if constexpr (N == 2) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    out[0] = v.x, out[1] = v.y;
  } else {
    static_assert(N == 1, "N must be 1, 2, 4 or 8");
    out[0] = __ldg(p);
  }
}

// cp.async of one lane's chunk (BYTES = EPL * 2) into shared memory at the 32-bit address s:
// .cg (L2 only: q and k are read once) for 16 bytes, .ca for 4 or 8 (.cg takes only 16). A
// dead head copies nothing and zero-fills its slot (src-size 0), as the register path loads
// zeros. The addresses are written out in 32 bits, so NVRTC and nvcc emit the same accesses.
template <int BYTES> __device__ __forceinline__ void cp_async_chunk(unsigned s, const void* global, bool live) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async moves 4, 8 or 16 bytes");
  const unsigned src_size = live ? BYTES : 0u;
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(global), "r"(src_size) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(s), "l"(global), "n"(BYTES), "r"(src_size)
                 : "memory");
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Wait until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}
template <int EPL> __device__ __forceinline__ Chunk<EPL> load_shared_chunk(unsigned s) {
  Chunk<EPL> c;
  if constexpr (EPL == 8) {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(c.w[0]), "=r"(c.w[1]), "=r"(c.w[2]), "=r"(c.w[3]) : "r"(s) : "memory");
  } else if constexpr (EPL == 4) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(c.w[0]), "=r"(c.w[1]) : "r"(s) : "memory");
  } else {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(c.w[0]) : "r"(s) : "memory");
  }
  return c;
}
__device__ __forceinline__ unsigned shared_address(const void* p) {
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm("" : "+r"(a));  // opaque from here: the offsets are added in 32 bits by both compilers
  return a;
}

// Blocks per SM for __launch_bounds__ when the register budget REGS is set (0: ptxas's own
// choice). Left to itself ptxas gave HPG = 2 56 registers, 56% occupancy, and the kernel sat at
// half the DRAM bandwidth issuing instructions (ncu, ITERATIONS.md iteration 1).
__host__ __device__ constexpr int min_blocks(int block, int regs) {
  if (regs == 0) return 1;
  const int fit = 65536 / (block * regs);
  const int most = 2048 / block < 32 ? 2048 / block : 32;
  return fit < 1 ? 1 : fit > most ? most : fit;
}

// One head's chunk, in both layouts: norm over the group's LANES lanes, weight, rotation with
// the lane's slice cs ([0, CS) cos, [CS, 2 CS) sin), one rounding, one store to dst when live.
// Every lane of the warp must call it together (the shuffles take the whole warp; a group past
// the end reduces zeros).
template <typename T, bool NEOX, int LANES, int EPL>
__device__ __forceinline__ void norm_rotate_store(const Chunk<EPL>& x, T* dst, const Chunk<EPL>& wt, const float* cs,
                                                  int lane, int half, bool rotated, bool first_half, bool live,
                                                  float inv_d, float eps) {
  using C = Codec<T>;
  constexpr int CS = NEOX ? EPL : EPL / 2;
  float v[EPL], sum = 0.f;
#pragma unroll
  for (int w = 0; w < EPL / 2; ++w) {
    v[2 * w] = C::lo(x.w[w]), v[2 * w + 1] = C::hi(x.w[w]);
    sum += v[2 * w] * v[2 * w] + v[2 * w + 1] * v[2 * w + 1];
  }
#pragma unroll
  for (int o = LANES / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o, LANES);
  const float r = rsqrtf(sum * inv_d + eps);
#pragma unroll
  for (int w = 0; w < EPL / 2; ++w) {
    v[2 * w] *= r * C::lo(wt.w[w]);
    v[2 * w + 1] *= r * C::hi(wt.w[w]);
  }
  if constexpr (NEOX) {
    const int span = half / EPL;
    const int partner = rotated ? (first_half ? lane + span : lane - span) : lane;
    float other[EPL];
#pragma unroll
    for (int e = 0; e < EPL; ++e) other[e] = __shfl_sync(0xffffffffu, v[e], partner, LANES);
    if (rotated && live) {
#pragma unroll
      for (int e = 0; e < EPL; ++e)
        v[e] = first_half ? v[e] * cs[e] - other[e] * cs[CS + e] : v[e] * cs[e] + other[e] * cs[CS + e];
    }
  } else if (rotated && live) {
#pragma unroll
    for (int m = 0; m < EPL / 2; ++m) {
      const float a = v[2 * m], b = v[2 * m + 1];
      v[2 * m] = a * cs[m] - b * cs[CS + m];
      v[2 * m + 1] = b * cs[m] + a * cs[CS + m];
    }
  }
  if (live) {
    Chunk<EPL> out;
#pragma unroll
    for (int w = 0; w < EPL / 2; ++w) out.w[w] = C::pack(v[2 * w], v[2 * w + 1]);
    store<EPL>(dst, out);
  }
}

// The SPLIT > 0 layout (see the top of the file): group g of the grid serves token g / SPLIT,
// heads g % SPLIT + i * SPLIT. Every group runs the same number of steps, ceil(2H / SPLIT / HPG),
// so the warp stays together through the shuffles; heads past 2H or tokens past N are masked.
template <typename T, typename IdT, bool NEOX, int LANES, int EPL, int HPG, int BLOCK, int SPLIT, int PIPE, int ASYNC>
__device__ __forceinline__ void by_token(T* q, T* k, const T* q_weight, const T* k_weight,
                                         const float* cos_sin_cache, const IdT* pos, int N, int H, int D, int R,
                                         long long q_stride, long long k_stride, float eps) {
  constexpr int GROUPS = BLOCK / LANES;
  constexpr int CS = NEOX ? EPL : EPL / 2;
  const int lane = threadIdx.x % LANES;
  const unsigned group = blockIdx.x * GROUPS + threadIdx.x / LANES;
  const unsigned t = group / SPLIT;
  const int part = static_cast<int>(group - t * SPLIT);
  const bool token_live = t < static_cast<unsigned>(N);
  const int half = R / 2, d0 = lane * EPL;
  const bool rotated = d0 < R;
  const bool first_half = d0 < half;
  const float inv_d = 1.f / D;
  const int heads2 = 2 * H;
  const int steps = (heads2 + SPLIT - 1) / SPLIT;  // heads per group, the same for every group

  // The lane's cos/sin slice of the token: two loads that wait on the position's. The ASYNC
  // path asks for its first heads before them, so that chain overlaps those copies.
  float cs[2 * CS];
  auto load_cs = [&]() {
    if (token_live && rotated) {
      const int cs_off = NEOX ? (first_half ? d0 : d0 - half) : d0 / 2;
      const float* row = cos_sin_cache + static_cast<long long>(pos[t]) * R + cs_off;
      load_f32<CS>(row, cs);
      load_f32<CS>(row + half, cs + CS);
    }
  };
  if constexpr (ASYNC == 0) load_cs();
  T* const q_tok = q + t * q_stride + d0;
  T* const k_tok = k + t * k_stride + d0;
  // Step i's HPG heads: where they live and whether they exist (masked ones load zeros).
  auto locate = [&](int i0, T** dst, bool* live, bool* is_q) {
#pragma unroll
    for (int j = 0; j < HPG; ++j) {
      const int hh = part + (i0 + j) * SPLIT;
      live[j] = token_live && i0 + j < steps && hh < heads2;
      is_q[j] = hh < H;
      dst[j] = is_q[j] ? q_tok + hh * D : k_tok + (hh - H) * D;
    }
  };
  auto fetch = [&](T* const* dst, const bool* live, Chunk<EPL>* x) {
#pragma unroll
    for (int j = 0; j < HPG; ++j) {
      if (live[j]) {
        x[j] = load<EPL, false>(dst[j]);
      } else {
#pragma unroll
        for (int w = 0; w < EPL / 2; ++w) x[j].w[w] = 0u;
      }
    }
  };
  const Chunk<EPL> wq = load<EPL, true>(q_weight + d0), wk = load<EPL, true>(k_weight + d0);
  auto finish = [&](const Chunk<EPL>* x, T* const* dst, const bool* live, const bool* is_q) {
#pragma unroll
    for (int j = 0; j < HPG; ++j)
      norm_rotate_store<T, NEOX, LANES, EPL>(x[j], dst[j], is_q[j] ? wq : wk, cs, lane, half, rotated, first_half,
                                             live[j], inv_d, eps);
  };
  Chunk<EPL> x[HPG];
  T* dst[HPG];
  bool live[HPG], is_q[HPG];
  if constexpr (ASYNC > 0) {
    // Slot s % (ASYNC + 1) holds step s's HPG chunks; thread-major, so a warp's 16-byte
    // accesses are contiguous. Step s + ASYNC is issued into the slot step s - 1 read, whose
    // values step s - 1 has already used: no read of a slot can race its refill.
    constexpr int SLOTS = ASYNC + 1, BYTES = EPL * 2;
    constexpr unsigned STEP = HPG * BLOCK * BYTES, RING = SLOTS * STEP;
    __shared__ __align__(16) unsigned char ring[RING];
    const unsigned mine = shared_address(ring) + threadIdx.x * BYTES;
    const int nsteps = (steps + HPG - 1) / HPG;
    // The slot written next and the one read next, stepped around the ring; head hh = part + i
    // SPLIT exists iff hh < 2H (then i < steps, as part < SPLIT).
    unsigned wr = mine, rd = mine;
    int next = part;
    auto issue = [&]() {
#pragma unroll
      for (int j = 0; j < HPG; ++j, next += SPLIT) {
        const bool l = token_live && next < heads2;
        const T* src = next < H ? q_tok + next * D : k_tok + (next - H) * D;
        cp_async_chunk<BYTES>(wr + j * BLOCK * BYTES, l ? src : q, l);
      }
      cp_async_commit();  // one group a step, empty past the end: the count below stays exact
      wr = wr + STEP == mine + RING ? mine : wr + STEP;
    };
#pragma unroll
    for (int ahead = 0; ahead < ASYNC; ++ahead) issue();
    load_cs();
    for (int step = 0; step < nsteps; ++step) {
      issue();  // into the slot step - 1 read: its values are used, no race with the refill
      cp_async_wait<ASYNC>();  // ASYNC + step + 1 groups committed: this step's is complete
      locate(step * HPG, dst, live, is_q);
#pragma unroll
      for (int j = 0; j < HPG; ++j) x[j] = load_shared_chunk<EPL>(rd + j * BLOCK * BYTES);
      rd = rd + STEP == mine + RING ? mine : rd + STEP;
      finish(x, dst, live, is_q);
    }
  } else if constexpr (PIPE) {
    // The next step's loads are issued before this step's reduction: HPG more 16-byte loads in
    // flight per lane for HPG more chunks of registers.
    locate(0, dst, live, is_q);
    fetch(dst, live, x);
    for (int i0 = 0; i0 < steps; i0 += HPG) {
      Chunk<EPL> xn[HPG];
      T* dn[HPG];
      bool ln[HPG], qn[HPG];
      locate(i0 + HPG, dn, ln, qn);
      fetch(dn, ln, xn);
      finish(x, dst, live, is_q);
#pragma unroll
      for (int j = 0; j < HPG; ++j) x[j] = xn[j], dst[j] = dn[j], live[j] = ln[j], is_q[j] = qn[j];
    }
  } else {
    for (int i0 = 0; i0 < steps; i0 += HPG) {
      locate(i0, dst, live, is_q);
      fetch(dst, live, x);
      finish(x, dst, live, is_q);
    }
  }
}

}  // namespace qknorm_rope_detail

template <typename T, typename IdT, bool NEOX, int LANES, int EPL, int HPG, int BLOCK, int REGS, int SPLIT, int PIPE,
          int ASYNC>
__global__ void __launch_bounds__(BLOCK, qknorm_rope_detail::min_blocks(BLOCK, REGS))
    qknorm_rope_kernel(T* q, T* k, const T* q_weight, const T* k_weight, const float* cos_sin_cache, const IdT* pos,
                       int N, int H, int D, int R, long long q_stride, long long k_stride, float eps) {
  using namespace qknorm_rope_detail;
  static_assert(LANES == 8 || LANES == 16 || LANES == 32, "a group is a power-of-two part of a warp");
  if constexpr (SPLIT > 0) {
    by_token<T, IdT, NEOX, LANES, EPL, HPG, BLOCK, SPLIT, PIPE, ASYNC>(q, k, q_weight, k_weight, cos_sin_cache, pos, N, H, D, R,
                                                         q_stride, k_stride, eps);
    return;
  }
  constexpr int GROUPS = BLOCK / LANES;
  constexpr int CS = NEOX ? EPL : EPL / 2;  // cos values (and as many sin values) per lane
  const int lane = threadIdx.x % LANES;
  const unsigned heads = static_cast<unsigned>(N) * 2 * H;
  const unsigned first = (blockIdx.x * GROUPS + threadIdx.x / LANES) * HPG;
  const int half = R / 2, d0 = lane * EPL;
  const bool rotated = d0 < R;
  const bool first_half = d0 < half;
  const int cs_off = NEOX ? (first_half ? d0 : d0 - half) : d0 / 2;
  const float inv_d = 1.f / D;

  // Every head's x chunk is requested before any arithmetic (HPG 16-byte loads in flight per
  // lane). One division for the group's first head; the others step from it (2H heads a token).
  const unsigned heads_per_token = 2u * H;
  Chunk<EPL> x[HPG];
  T* ptr[HPG];
  unsigned tok[HPG];
  {
    unsigned t = first / heads_per_token, hh = first - t * heads_per_token;
#pragma unroll
    for (int j = 0; j < HPG; ++j) {
      if (j > 0 && ++hh == heads_per_token) hh = 0, ++t;
      tok[j] = t;
      ptr[j] = hh < static_cast<unsigned>(H) ? q + t * q_stride + hh * D : k + t * k_stride + (hh - H) * D;
      if (first + j < heads) {
        x[j] = load<EPL, false>(ptr[j] + d0);
      } else {
#pragma unroll
        for (int w = 0; w < EPL / 2; ++w) x[j].w[w] = 0u;
      }
    }
  }

  // The lane's cos/sin slice of a token (fp32, 8- or 16-byte accesses): [0, CS) cos, [CS, 2 CS) sin.
  auto load_cs = [&](unsigned t, float* cs) {
    const float* row = cos_sin_cache + static_cast<long long>(pos[t]) * R + cs_off;
    load_f32<CS>(row, cs);
    load_f32<CS>(row + half, cs + CS);
  };
  // Norm, weight and rotation of head j with slice cs, then its one store. The head's weight
  // chunk (q's or k's: L1 hits) is loaded there, not held for the whole kernel, which would
  // keep both tensors' chunks live.
  auto finish = [&](int j, const float* cs) {
    const unsigned idx = first + j;
    const bool is_q = idx - tok[j] * heads_per_token < static_cast<unsigned>(H);
    norm_rotate_store<T, NEOX, LANES, EPL>(x[j], ptr[j] + d0, load<EPL, true>((is_q ? q_weight : k_weight) + d0), cs,
                                           lane, half, rotated, first_half, idx < heads, inv_d, eps);
  };

  // Usually every group of the warp holds heads of one token each (always when HPG divides
  // 2H): then a lane loads its cos/sin slice once and keeps 2 CS floats for all HPG heads.
  // Otherwise each head loads its own as it needs it. The test is warp-wide because the
  // shuffles inside finish() need every lane of the warp on the same path.
  float cs[2 * CS];
  const bool live = rotated && first < heads;
  if (__all_sync(0xffffffffu, HPG == 1 || tok[HPG - 1] == tok[0])) {
    if (live) load_cs(tok[0], cs);
#pragma unroll
    for (int j = 0; j < HPG; ++j) finish(j, cs);
  } else {
#pragma unroll
    for (int j = 0; j < HPG; ++j) {
      if (rotated && first + j < heads) load_cs(tok[j], cs);
      finish(j, cs);
    }
  }
}
