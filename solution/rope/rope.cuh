#pragma once
// RoPE in place on q and k, the fast candidate. Same math as input/rope/rope.cuh: fp32
// rotation of each pair with the fp32 cos/sin cache row of the token's position, one rounding
// per element; interleaved (GPT-J) or NeoX pairs; elements R..D-1 of a head are not touched.
//
//   template <T, IdT, NEOX, VEC, HPT, BLOCK, CS>, the reference's arguments
//   grid = ceil_div(N * 2 * HG * CH, BLOCK), block = BLOCK, HG = ceil_div(H, HPT) head groups,
//   CH = (NEOX ? R / 2 : R) / VEC chunks per head.
// H, D and R are run-time values (one build serves every model, as ako port needs): the
// per-thread loop over HPT heads is what unrolls; the index arithmetic is a few 32-bit
// divisions per thread, against HPT * 2 16-byte accesses.
//
// Layout of the work: a token has 2 * HG * CH work items: tensor (q or k) x head group x
// chunk. A chunk is VEC consecutive elements of a head (VEC * 2 bytes: 16 with VEC = 8); in
// NeoX mode the chunk at i pairs with the one at i + R/2 and one thread moves both. The thread
// of (tensor, hg, chunk) rotates that chunk in the HPT heads hg, hg + HG, hg + 2 * HG, ... < H:
// - its cos/sin values (VEC / 2 pairs, or VEC in NeoX) are loaded once and reused for all
//   its heads; the 2 * HG threads sharing a cache slice of a token find it in L1;
// - its heads' loads are all issued before any rotation (the HPT loop unrolls): HPT (NeoX:
//   2 * HPT) independent 16-byte loads in flight per thread;
// - interleaved pairs are exactly the 32-bit words of the vector: no shuffles;
// - with CS = 1, q and k move with streaming hints (ld/st.global.cs): each is touched once.
// Requirements (the task's constraints): bf16 or fp16, D % VEC == 0, (NEOX ? R / 2 : R) %
// VEC == 0, q / k aligned to VEC * 2 bytes, token strides multiples of VEC; and at most 64
// elements (32 registers) of q / k held per thread, HPT * (NEOX ? 2 : 1) * VEC <= 64, so that
// even 1024-thread blocks (64 registers a thread) do not spill.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace rope_detail {

// 16-bit float <-> fp32 on packed pairs: element 2m is the low half of word m.
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

// VEC 16-bit elements as VEC / 2 words, moved as one access of VEC * 2 bytes.
template <int VEC> struct Chunk {
  static_assert(VEC == 2 || VEC == 4 || VEC == 8, "VEC must be 2, 4 or 8");
  unsigned w[VEC / 2];
};

template <int VEC, bool CS> __device__ __forceinline__ Chunk<VEC> load(const void* p) {
  Chunk<VEC> c;
  if constexpr (VEC == 8) {
    const uint4 v = CS ? __ldcs(static_cast<const uint4*>(p)) : *static_cast<const uint4*>(p);
    c.w[0] = v.x, c.w[1] = v.y, c.w[2] = v.z, c.w[3] = v.w;
  } else if constexpr (VEC == 4) {
    const uint2 v = CS ? __ldcs(static_cast<const uint2*>(p)) : *static_cast<const uint2*>(p);
    c.w[0] = v.x, c.w[1] = v.y;
  } else {
    c.w[0] = CS ? __ldcs(static_cast<const unsigned*>(p)) : *static_cast<const unsigned*>(p);
  }
  return c;
}

template <int VEC, bool CS> __device__ __forceinline__ void store(void* p, const Chunk<VEC>& c) {
  if constexpr (VEC == 8) {
    const uint4 v = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
    if (CS) __stcs(static_cast<uint4*>(p), v); else *static_cast<uint4*>(p) = v;
  } else if constexpr (VEC == 4) {
    const uint2 v = make_uint2(c.w[0], c.w[1]);
    if (CS) __stcs(static_cast<uint2*>(p), v); else *static_cast<uint2*>(p) = v;
  } else {
    if (CS) __stcs(static_cast<unsigned*>(p), c.w[0]); else *static_cast<unsigned*>(p) = c.w[0];
  }
}

// NC consecutive floats of a cache row (read-only path), as wide as the alignment allows:
// the row starts at pos * R floats and the slices at multiples of NC, and at R / 2 for sin, so
// 16-byte loads need R / 2 % 4 == 0 (a uniform branch: R is the same for every thread).
template <int NC> __device__ __forceinline__ void load_floats(const float* p, int half, float (&out)[NC]) {
  if (NC % 4 == 0 && half % 4 == 0) {
#pragma unroll
    for (int m = 0; m < NC / 4; ++m) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(p) + m);
      out[4 * m] = v.x, out[4 * m + 1] = v.y, out[4 * m + 2] = v.z, out[4 * m + 3] = v.w;
    }
  } else if (NC % 2 == 0 && half % 2 == 0) {
#pragma unroll
    for (int m = 0; m < NC / 2; ++m) {
      const float2 v = __ldg(reinterpret_cast<const float2*>(p) + m);
      out[2 * m] = v.x, out[2 * m + 1] = v.y;
    }
  } else {
#pragma unroll
    for (int m = 0; m < NC; ++m) out[m] = __ldg(p + m);
  }
}

}  // namespace rope_detail

template <typename T, typename IdT, bool NEOX, int VEC, int HPT, int BLOCK, int CS>
__global__ void __launch_bounds__(BLOCK)
    rope_kernel(T* q, T* k, const float* cos_sin_cache, const IdT* pos, int N, int H, int D, int R, long long q_stride,
                long long k_stride) {
  using namespace rope_detail;
  using C = Codec<T>;
  constexpr int NC = NEOX ? VEC : VEC / 2;     // cos (and sin) values per chunk
  const int HALF = R / 2;
  const int CH = (NEOX ? HALF : R) / VEC;      // chunks per head that rotate
  const int HG = (H + HPT - 1) / HPT;          // head groups: threads per chunk and tensor

  // 32-bit index arithmetic: the task's grids stay far below 2^32 threads (hunyuan-720p: 23M).
  const unsigned item = blockIdx.x * BLOCK + threadIdx.x;
  const unsigned per_token = static_cast<unsigned>(CH) * 2 * HG;
  const unsigned n = item / per_token, rest = item - n * per_token;
  if (n >= static_cast<unsigned>(N)) return;
  const int g = static_cast<int>(rest / CH), c = static_cast<int>(rest - g * CH);
  const int hg = g % HG;
  T* base = g < HG ? q + n * q_stride : k + n * k_stride;

  const float* row = cos_sin_cache + static_cast<long long>(pos[n]) * R;
  float cs[NC], sn[NC];
  load_floats<NC>(row + c * NC, HALF, cs);
  load_floats<NC>(row + HALF + c * NC, HALF, sn);

  Chunk<VEC> a[HPT], b[NEOX ? HPT : 1];
#pragma unroll
  for (int j = 0; j < HPT; ++j) {
    const int h = hg + j * HG;
    if (h < H) {
      a[j] = load<VEC, (CS != 0)>(base + h * D + c * VEC);
      if constexpr (NEOX) b[j] = load<VEC, (CS != 0)>(base + h * D + HALF + c * VEC);
    }
  }
#pragma unroll
  for (int j = 0; j < HPT; ++j) {
    const int h = hg + j * HG;
    if (h >= H) continue;
    if constexpr (NEOX) {
      // Pair m: a = element m of the first chunk, b = element m of the chunk R/2 further.
#pragma unroll
      for (int w = 0; w < VEC / 2; ++w) {
        const float a0 = C::lo(a[j].w[w]), a1 = C::hi(a[j].w[w]);
        const float b0 = C::lo(b[j].w[w]), b1 = C::hi(b[j].w[w]);
        const float c0 = cs[2 * w], c1 = cs[2 * w + 1], s0 = sn[2 * w], s1 = sn[2 * w + 1];
        a[j].w[w] = C::pack(a0 * c0 - b0 * s0, a1 * c1 - b1 * s1);
        b[j].w[w] = C::pack(b0 * c0 + a0 * s0, b1 * c1 + a1 * s1);
      }
      store<VEC, (CS != 0)>(base + h * D + c * VEC, a[j]);
      store<VEC, (CS != 0)>(base + h * D + HALF + c * VEC, b[j]);
    } else {
      // Pair w is word w: (lo, hi) = (x[2i], x[2i + 1]).
#pragma unroll
      for (int w = 0; w < VEC / 2; ++w) {
        const float x0 = C::lo(a[j].w[w]), x1 = C::hi(a[j].w[w]);
        a[j].w[w] = C::pack(x0 * cs[w] - x1 * sn[w], x1 * cs[w] + x0 * sn[w]);
      }
      store<VEC, (CS != 0)>(base + h * D + c * VEC, a[j]);
    }
  }
}
