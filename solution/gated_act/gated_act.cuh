#pragma once
// Gated activation, the fast candidate. Same ops as input/gated_act/gated_act.cuh:
//
//   gelu_tanh_and_mul  out[r, c] = T( gelu_tanh(x[r, c]) * x[r, d + c] )        x [rows, 2d]
//   silu_and_mul       out[r, c] = T( silu(x[r, c])      * x[r, d + c] )        x [rows, 2d]
//   geglu              out[r, c] = T( x[r, c] * gelu_erf(x[r, d + c]) )         x [rows, 2d]
//   gelu_tanh          out[r, c] = T( gelu_tanh(x[r, c]) )                      x [rows, d]
//
// fp32 math, one rounding at the store, so it agrees with the reference to within an ulp.
//
//   template <T, ACT, BLOCK, VEC, UNROLL, MUL_BLOCK, MUL_UNROLL>
//   grid = rows * ceil_div(cols / VEC, B * U), block = B, no shared memory, where B, U are
//   MUL_BLOCK, MUL_UNROLL for the two cheap `*_and_mul` forms and BLOCK, UNROLL for geglu and
//   gelu_tanh. Their best launch shapes differ (H200, image shapes: the `*_and_mul` forms
//   fastest at one chunk per thread in 256-thread blocks, as SGLang's JIT kernel runs; geglu's
//   erf and the ungated form need two chunks in flight per thread, 5-9% slower at one), so each
//   group has its own pair and one config class of a shape holds a good choice for both.
//
// Layout of the work: a row of d outputs is cut into tiles of BLOCK * UNROLL chunks of VEC
// elements (VEC = 8: 16-byte accesses); block b takes tile b % tiles of row b / tiles (one
// integer division per thread, not per element). Thread t of a tile owns chunks t, t + BLOCK,
// ... (UNROLL of them), so each of its accesses is coalesced across the warp.
//
// Why it is fast on a memory-bound op: every load of a thread (UNROLL chunks of the activation
// half and UNROLL of the gate half, 2 * UNROLL 16-byte loads) is issued before any arithmetic, the
// gated forms' stores are streaming (st.global.cs: nothing reads them again here; the ungated
// form's write back, see store_chunk), and the activations cost a
// few instructions per element: gelu_tanh(v) = v * sigmoid(2u) = v / (1 + exp(-2u)) with u the
// tanh argument (the identity 0.5 (1 + tanh(u)) = sigmoid(2u)), silu(v) = v / (1 + exp(-v)), each
// one ex2.approx and one rcp.approx (relative error about 2^-21, far below a bf16 or fp16 ulp, and
// no cancellation in 1 + tanh for negative v). erf GELU takes the same form, v / (1 + exp(-z)) with
// z = logit(Phi(v)) as an odd polynomial (scripts/fit_gelu_erf.py: output within 1e-6 of
// v * Phi(v) on |v| <= 12), about 12 instructions an element where CUDA's erff took about 30 and
// held geglu under the copy rate the other forms reach.
// Requirements: cols % VEC == 0, x and out aligned to VEC * sizeof(T) bytes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// The task's axis `act` names these (task.json: "gated_act_kernel<{T}, Act::{act}, ...>").
enum class Act { gelu_tanh_and_mul, silu_and_mul, geglu, gelu_tanh };

namespace gated_act_detail {

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

// Loads through the read-only path (x is never written by this kernel).
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

// The store's cache policy: streaming (st.global.cs, evict-first: the output is not read again
// here) for the `*_and_mul` and geglu forms; write-back (st.global.wb) for the ungated gelu_tanh,
// whose read and write streams are the same size: on the H200 it ran 0.5% faster (geomean; 0-1.5%)
// with write-back stores, every one of its 20 cases, where the gated forms were level
// (ITERATIONS.md gated_act iterations 5-6).
template <int VEC, bool STREAM> __device__ __forceinline__ void store_chunk(void* p, const Chunk<VEC>& c) {
  if constexpr (VEC == 8) {
    const uint4 v = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
    if constexpr (STREAM) __stcs(static_cast<uint4*>(p), v); else __stwb(static_cast<uint4*>(p), v);
  } else if constexpr (VEC == 4) {
    const uint2 v = make_uint2(c.w[0], c.w[1]);
    if constexpr (STREAM) __stcs(static_cast<uint2*>(p), v); else __stwb(static_cast<uint2*>(p), v);
  } else if constexpr (VEC == 2) {
    if constexpr (STREAM) __stcs(static_cast<unsigned*>(p), c.w[0]); else __stwb(static_cast<unsigned*>(p), c.w[0]);
  } else {
    const unsigned short v = static_cast<unsigned short>(c.w[0]);
    if constexpr (STREAM) __stcs(static_cast<unsigned short*>(p), v); else __stwb(static_cast<unsigned short*>(p), v);
  }
}

__device__ __forceinline__ float exp2_approx(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ __forceinline__ float rcp_approx(float v) {
  float r;  // rcp(inf) = 0: v / (1 + inf) comes out as a signed zero, its limit
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kGeluTanhBeta = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluTanhAlpha = 0.044715f;

// v / (1 + exp(-s * v')) with the exponent's argument given as a power of two.
__device__ __forceinline__ float gelu_tanh(float v) {
  const float u = kGeluTanhBeta * fmaf(kGeluTanhAlpha * v, v * v, v);
  return v * rcp_approx(1.0f + exp2_approx(-2.0f * kLog2e * u));
}
__device__ __forceinline__ float silu(float v) { return v * rcp_approx(1.0f + exp2_approx(-kLog2e * v)); }
// v * Phi(v) = v / (1 + 2^(v * P(v^2))), P's coefficients those of scripts/fit_gelu_erf.py (z's times
// -log2 e). Huge |v| sends P to inf: the output becomes v or a signed zero, its limits.
__device__ __forceinline__ float gelu_erf(float v) {
  const float v2 = v * v;
  float p = -5.188752983e-09f;
  p = fmaf(p, v2, 3.857669810e-07f);
  p = fmaf(p, v2, -1.147944113e-05f);
  p = fmaf(p, v2, 1.596468355e-04f);
  p = fmaf(p, v2, 9.463226161e-05f);
  p = fmaf(p, v2, -1.048372537e-01f);
  p = fmaf(p, v2, -2.302207708e+00f);
  return v * rcp_approx(1.0f + exp2_approx(v * p));
}

template <Act ACT> __device__ __forceinline__ float apply(float a, float b) {
  if constexpr (ACT == Act::gelu_tanh_and_mul) return gelu_tanh(a) * b;
  else if constexpr (ACT == Act::silu_and_mul) return silu(a) * b;
  else if constexpr (ACT == Act::geglu) return a * gelu_erf(b);
  else return gelu_tanh(a);
}

// out chunk = T(ACT(a, b)) element by element; b is unused by the ungated gelu_tanh.
template <typename T, Act ACT, int VEC>
__device__ __forceinline__ Chunk<VEC> activate(const Chunk<VEC>& a, const Chunk<VEC>& b) {
  Chunk<VEC> y;
  if constexpr (VEC == 1) {
    y.w[0] = Codec<T>::pack(apply<ACT>(Codec<T>::lo(a.w[0]), Codec<T>::lo(b.w[0])), 0.f) & 0xffffu;
  } else {
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i)
      y.w[i] = Codec<T>::pack(apply<ACT>(Codec<T>::lo(a.w[i]), Codec<T>::lo(b.w[i])),
                              apply<ACT>(Codec<T>::hi(a.w[i]), Codec<T>::hi(b.w[i])));
  }
  return y;
}

}  // namespace gated_act_detail

// The launch shape of one form: MUL_* for the `*_and_mul` forms, the plain pair for the others.
template <Act A> inline constexpr bool kMulForm = A == Act::gelu_tanh_and_mul || A == Act::silu_and_mul;

template <typename T, Act ACT, int BLOCK, int VEC, int UNROLL, int MUL_BLOCK, int MUL_UNROLL>
__global__ void __launch_bounds__(kMulForm<ACT> ? MUL_BLOCK : BLOCK)
gated_act_kernel(T* __restrict__ out, const T* __restrict__ x, int rows, int cols) {
  using namespace gated_act_detail;
  constexpr int kBlock = kMulForm<ACT> ? MUL_BLOCK : BLOCK;
  constexpr int kUnroll = kMulForm<ACT> ? MUL_UNROLL : UNROLL;
  static_assert(sizeof(T) == 2, "bf16 / fp16 only");
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "BLOCK: whole warps, at most 1024");
  static_assert(kUnroll >= 1, "UNROLL >= 1");
  constexpr bool kGated = ACT != Act::gelu_tanh;
  constexpr int kTile = kBlock * kUnroll;  // chunks per block

  const int n_chunks = cols / VEC;
  const int tiles = (n_chunks + kTile - 1) / kTile;
  const long long row = blockIdx.x / tiles;
  const int first = (blockIdx.x - static_cast<int>(row) * tiles) * kTile + threadIdx.x;
  if (row >= rows) return;
  const T* a_row = x + row * (kGated ? 2LL * cols : static_cast<long long>(cols));
  const T* b_row = a_row + cols;
  T* out_row = out + row * cols;

  // 1. Issue every load before any arithmetic on them.
  Chunk<VEC> a[kUnroll], b[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int c = first + u * kBlock;
    if (c < n_chunks) {
      a[u] = load_chunk<VEC>(a_row + c * VEC);
      if constexpr (kGated) b[u] = load_chunk<VEC>(b_row + c * VEC);
    }
  }
  // 2. Activate, round once, store.
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int c = first + u * kBlock;
    if (c < n_chunks) {
      if constexpr (!kGated) b[u] = a[u];  // unused by the ungated form; keeps it defined
      store_chunk<VEC, kGated>(out_row + c * VEC, activate<T, ACT, VEC>(a[u], b[u]));
    }
  }
}
