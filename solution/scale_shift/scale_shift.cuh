#pragma once
// scale_shift, the fast candidate: y = x * (1 + scale) + shift over x [B, L, C], scale and shift
// in one of six broadcast layouts, in x's dtype or fp32. Same math as
// input/scale_shift/scale_shift.cuh (every operand in fp32, fmaf(x, 1 + scale, shift), one
// rounding at the store), so the two agree bit for bit.
//
//   template <T, S, LAYOUT, VEC, TX, TY, ROWS_PER_THREAD, STORE_CS, ROW_CACHE>
//   grid = ceil_div(C / VEC, TX) * ceil_div(B * L, TY * ROWS_PER_THREAD), block = (TX, TY)
//
// Layout of the work: x is [B * L rows, C]. A block owns a tile of TY * ROWS_PER_THREAD
// consecutive rows and a slab of TX * VEC columns; consecutive blocks take the slabs of one tile,
// then of the next, so the grid sweeps memory in order. Thread (tx, ty) owns one VEC-wide column
// chunk, in rows ty, ty + TY, ... of the tile.
//
// Why it is fast on a memory-bound op:
// - x moves in VEC * sizeof(T)-byte accesses (16 bytes at VEC = 8 for bf16 / fp16), and all
//   ROWS_PER_THREAD of a thread's loads are issued before the first is used. x is read once,
//   evict-first (ROW_CACHE 0) or through the read-only cache (ROW_CACHE 1: 2-4.5% faster on the
//   video shapes, 1-3% slower on the mid-size image ones, on the H200: ITERATIONS.md scale_shift
//   iteration 10), chosen by class. ptxas may move a read-only load below a store, which at some
//   points serialises a thread's rows (iteration 11): a class's SASS should load before it stores.
//   y is written once (streaming or plain stores: STORE_CS).
// - Broadcast scale / shift (scalar, c, bc, bf1c) are read once per thread, kept in registers
//   as fp32 (1 + scale) and shift, and read again only when a row of the tile starts another
//   batch or frame: they cost no HBM or L2 bandwidth per element.
// - Per-token scale / shift (lc, blc) are loaded beside x at their own width (VEC * sizeof(S)
//   bytes: two 16-byte loads per operand when S is fp32), as x for blc (read once), through
//   the read-only cache for lc (the batches share it).
// - No shared memory, no barriers: a thread whose chunk lies past the row (C / VEC not a
//   multiple of TX) leaves at once.
// Requirements: C % VEC == 0 (so every row, and every scale / shift row, starts VEC-aligned);
// B * L < 2^31; L % F == 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Layout { scalar, c, bc, lc, blc, bf1c };

namespace scale_shift_detail {

// The register image of N consecutive elements of E, as 32-bit words (a 2-byte image sits in
// the low half of w[0]). Element i of a 16-bit type is the low (even i) or high half of word i / 2.
template <typename E, int N> struct Words {
  static constexpr int kBytes = N * static_cast<int>(sizeof(E));
  static_assert(kBytes == 2 || kBytes % 4 == 0, "2 bytes or whole words");
  static_assert(kBytes <= 64, "at most four 16-byte accesses");
  static constexpr int kWords = kBytes >= 4 ? kBytes / 4 : 1;
  unsigned w[kWords];
};

template <typename E> __device__ __forceinline__ float element(const unsigned* w, int i);
template <> __device__ __forceinline__ float element<float>(const unsigned* w, int i) { return __uint_as_float(w[i]); }
template <> __device__ __forceinline__ float element<__nv_bfloat16>(const unsigned* w, int i) {
  const unsigned word = w[i / 2];
  return __uint_as_float(i % 2 ? word & 0xffff0000u : word << 16);  // bf16 -> fp32 is exact
}
template <> __device__ __forceinline__ float element<__half>(const unsigned* w, int i) {
  return __half2float(__ushort_as_half(static_cast<unsigned short>(w[i / 2] >> (16 * (i % 2)))));
}

// fp32 -> T for a pair (lo, hi), round to nearest even: one instruction for both halves.
template <typename T> __device__ __forceinline__ unsigned pack_pair(float lo, float hi);
template <> __device__ __forceinline__ unsigned pack_pair<__nv_bfloat16>(float lo, float hi) {
  unsigned w;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
}
template <> __device__ __forceinline__ unsigned pack_pair<__half>(float lo, float hi) {
  unsigned w;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
}

// Loads: evict-first for data read once, read-only cache for data that other rows read again.
enum class Reuse { once, shared };

template <Reuse R, typename V> __device__ __forceinline__ V load_one(const V* p) {
  if constexpr (R == Reuse::once) return __ldcs(p);
  else return __ldg(p);
}

template <Reuse R, typename E, int N> __device__ __forceinline__ Words<E, N> load(const E* p) {
  Words<E, N> v;
  constexpr int kBytes = Words<E, N>::kBytes;
  if constexpr (kBytes % 16 == 0) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i) {
      const uint4 r = load_one<R>(reinterpret_cast<const uint4*>(p) + i);
      v.w[4 * i] = r.x; v.w[4 * i + 1] = r.y; v.w[4 * i + 2] = r.z; v.w[4 * i + 3] = r.w;
    }
  } else if constexpr (kBytes == 8) {
    const uint2 r = load_one<R>(reinterpret_cast<const uint2*>(p));
    v.w[0] = r.x; v.w[1] = r.y;
  } else if constexpr (kBytes == 4) {
    v.w[0] = load_one<R>(reinterpret_cast<const unsigned*>(p));
  } else {
    v.w[0] = load_one<R>(reinterpret_cast<const unsigned short*>(p));
  }
  return v;
}

// Streaming (st.global.cs) or plain write-back stores, by STORE_CS: on the H200 plain ones are
// 1-3% faster on wan13b, flux2, qwen-image and the [B, C] layout of wan14b / hunyuan-720p, up to
// 3% slower on their per-frame layout and on ltx-video (ITERATIONS.md scale_shift iteration 3).
template <bool CS, typename V> __device__ __forceinline__ void store_one(V* p, V v) {
  if constexpr (CS) __stcs(p, v); else *p = v;
}
template <typename E, int N, bool CS> __device__ __forceinline__ void store(E* p, const Words<E, N>& v) {
  constexpr int kBytes = Words<E, N>::kBytes;
  if constexpr (kBytes % 16 == 0) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i)
      store_one<CS>(reinterpret_cast<uint4*>(p) + i, make_uint4(v.w[4 * i], v.w[4 * i + 1], v.w[4 * i + 2], v.w[4 * i + 3]));
  } else if constexpr (kBytes == 8) {
    store_one<CS>(reinterpret_cast<uint2*>(p), make_uint2(v.w[0], v.w[1]));
  } else if constexpr (kBytes == 4) {
    store_one<CS>(reinterpret_cast<unsigned*>(p), v.w[0]);
  } else {
    store_one<CS>(reinterpret_cast<unsigned short*>(p), static_cast<unsigned short>(v.w[0]));
  }
}

// y = T(fmaf(x, a, h)) for the VEC elements of a chunk, a = 1 + scale already in fp32.
template <typename T, int VEC>
__device__ __forceinline__ Words<T, VEC> modulate(const Words<T, VEC>& x, const float (&a)[VEC], const float (&h)[VEC]) {
  Words<T, VEC> y;
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) y.w[i] = __float_as_uint(fmaf(element<T>(x.w, i), a[i], h[i]));
  } else if constexpr (VEC == 1) {
    y.w[0] = pack_pair<T>(fmaf(element<T>(x.w, 0), a[0], h[0]), 0.f) & 0xffffu;
  } else {
#pragma unroll
    for (int i = 0; i < VEC / 2; ++i)
      y.w[i] = pack_pair<T>(fmaf(element<T>(x.w, 2 * i), a[2 * i], h[2 * i]),
                            fmaf(element<T>(x.w, 2 * i + 1), a[2 * i + 1], h[2 * i + 1]));
  }
  return y;
}

// a = 1 + scale, h = shift, as fp32, for the chunk of VEC elements at element m of scale / shift.
template <Reuse R, typename S, int VEC>
__device__ __forceinline__ void load_modulation(const S* scale, const S* shift, long long m, float (&a)[VEC],
                                                float (&h)[VEC]) {
  const Words<S, VEC> s = load<R, S, VEC>(scale + m), t = load<R, S, VEC>(shift + m);
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    a[i] = 1.0f + element<S>(s.w, i);
    h[i] = element<S>(t.w, i);
  }
}

// Row of scale / shift (in rows of C elements) that token `row` = b * L + l reads. `frame_len`
// is L / F. 32-bit divisions: B * L < 2^31.
template <Layout LAYOUT>
__device__ __forceinline__ long long modulation_row(int row, int L, int F, int frame_len) {
  if constexpr (LAYOUT == Layout::scalar || LAYOUT == Layout::c) return 0;
  else if constexpr (LAYOUT == Layout::bc) return row / L;
  else if constexpr (LAYOUT == Layout::lc) return row % L;
  else if constexpr (LAYOUT == Layout::blc) return row;
  else {
    const int b = row / L;
    return static_cast<long long>(b) * F + (row - b * L) / frame_len;
  }
}

}  // namespace scale_shift_detail

template <typename T, typename S, Layout LAYOUT, int VEC, int TX, int TY, int ROWS_PER_THREAD, int STORE_CS = 1,
          int ROW_CACHE = 0>
__global__ void __launch_bounds__(TX * TY)
scale_shift_kernel(T* __restrict__ y, const T* __restrict__ x, const S* __restrict__ scale,
                   const S* __restrict__ shift, int B, int L, int C, int F) {
  using namespace scale_shift_detail;
  static_assert(TX % 32 == 0 && TX * TY <= 1024, "TX: whole warps; at most 1024 threads");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4 || VEC == 8, "VEC must be 1, 2, 4 or 8");
  static_assert(ROWS_PER_THREAD >= 1, "ROWS_PER_THREAD >= 1");
  constexpr bool kPerToken = LAYOUT == Layout::lc || LAYOUT == Layout::blc;
  constexpr Reuse kRow = ROW_CACHE ? Reuse::shared : Reuse::once;  // x's (and blc's) load path

  const int n_chunks = C / VEC;
  const int n_slabs = (n_chunks + TX - 1) / TX;
  const int chunk = static_cast<int>(blockIdx.x % n_slabs) * TX + threadIdx.x;
  const int rows = B * L;
  const int first = static_cast<int>(blockIdx.x / n_slabs) * (TY * ROWS_PER_THREAD) + threadIdx.y;
  if (chunk >= n_chunks || first >= rows) return;  // no barriers below: leaving early is safe
  const int col = chunk * VEC, frame_len = L / F;

  // 1. Every x load of the thread (and, per token, its scale / shift) in flight at once.
  Words<T, VEC> xs[ROWS_PER_THREAD];
#pragma unroll
  for (int i = 0; i < ROWS_PER_THREAD; ++i) {
    const int row = first + i * TY;
    if (row < rows) xs[i] = load<kRow, T, VEC>(x + static_cast<long long>(row) * C + col);
  }

  if constexpr (kPerToken) {
    constexpr Reuse kReuse = LAYOUT == Layout::blc ? kRow : Reuse::shared;
    Words<S, VEC> ss[ROWS_PER_THREAD], hs[ROWS_PER_THREAD];
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i) {
      const int row = first + i * TY;
      if (row < rows) {
        const long long m = modulation_row<LAYOUT>(row, L, F, frame_len) * C + col;
        ss[i] = load<kReuse, S, VEC>(scale + m);
        hs[i] = load<kReuse, S, VEC>(shift + m);
      }
    }
    // 2. Modulate and store.
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i) {
      const int row = first + i * TY;
      if (row >= rows) break;
      float a[VEC], h[VEC];
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        a[k] = 1.0f + element<S>(ss[i].w, k);
        h[k] = element<S>(hs[i].w, k);
      }
      store<T, VEC, STORE_CS != 0>(y + static_cast<long long>(row) * C + col, modulate<T, VEC>(xs[i], a, h));
    }
  } else {
    // Broadcast: the tile's scale / shift chunk once, again only at a batch or frame boundary.
    float a[VEC], h[VEC];
    long long held = modulation_row<LAYOUT>(first, L, F, frame_len);
    if constexpr (LAYOUT == Layout::scalar) {
      const float s = 1.0f + float(__ldg(scale)), t = float(__ldg(shift));
#pragma unroll
      for (int k = 0; k < VEC; ++k) {
        a[k] = s;
        h[k] = t;
      }
    } else {
      load_modulation<Reuse::shared, S, VEC>(scale, shift, held * C + col, a, h);
    }
    // 2. Modulate and store.
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i) {
      const int row = first + i * TY;
      if (row >= rows) break;
      if constexpr (LAYOUT == Layout::bc || LAYOUT == Layout::bf1c) {
        const long long m = modulation_row<LAYOUT>(row, L, F, frame_len);
        if (m != held) {
          held = m;
          load_modulation<Reuse::shared, S, VEC>(scale, shift, held * C + col, a, h);
        }
      }
      store<T, VEC, STORE_CS != 0>(y + static_cast<long long>(row) * C + col, modulate<T, VEC>(xs[i], a, h));
    }
  }
}
