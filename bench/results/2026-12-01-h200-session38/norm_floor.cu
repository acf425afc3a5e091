// Session 38: the time floor of issue 14's 512-token cases (text-512: 512 x 3072, text-512-cfg: 1024 x 3072),
// where most of the four norm / modulation families' cases under 1.1x over SGLang's kernel are, and where ako
// already runs as fast as a memcpy of the case's bytes (so a copy is no floor there). Each kernel here does the
// least a kernel of that family must: one 3072-column row a block, every 16-byte chunk of every full-size
// stream loaded up front, the inputs summed (the residual fusion's residual + x), for the norms the row's sum
// of squares reduced across the block (warp shuffles, one shared-memory exchange, one barrier) before any
// store, the full-size modulation streams ([1, L, C] / [B, L, C]: scale, shift) applied, and the outputs
// stored (the fusion's residual_out too). No weight, bias, gate or broadcast rows (they come from L2), one
// reduction for every norm (a LayerNorm needs at least that): a lower bound of what each real kernel does.
//   fl_<x>_<T>_<in><out>_m<mod>_r<reduce>: x bf16 ("h") or fp32 ("f"); T threads a row; 1 or 2 input and
//   output streams; mod 0 none, 1 two streams in x's dtype, 2 two fp32 streams; reduce 0 / 1.
// Built with nvcc -cubin -arch=sm_90a; launched by norm_floor.py.
#include <cuda_bf16.h>

template <typename X> struct Chunk;   // 16 bytes of X as floats
template <> struct Chunk<__nv_bfloat16> {
  static constexpr int E = 8;
  __device__ static void load(const __nv_bfloat16* p, float* f) {
    uint4 u = *reinterpret_cast<const uint4*>(p);
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&u);
#pragma unroll
    for (int i = 0; i < 4; ++i) { float2 t = __bfloat1622float2(h[i]); f[2 * i] = t.x; f[2 * i + 1] = t.y; }
  }
  __device__ static void store(__nv_bfloat16* p, const float* f) {
    uint4 u;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&u);
#pragma unroll
    for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    *reinterpret_cast<uint4*>(p) = u;
  }
};
template <> struct Chunk<float> {
  static constexpr int E = 4;
  __device__ static void load(const float* p, float* f) {
    float4 u = *reinterpret_cast<const float4*>(p);
    f[0] = u.x; f[1] = u.y; f[2] = u.z; f[3] = u.w;
  }
  __device__ static void store(float* p, const float* f) { *reinterpret_cast<float4*>(p) = make_float4(f[0], f[1], f[2], f[3]); }
};

// E elements of a modulation stream at element offset o: in x's dtype (MOD 1) or fp32 (MOD 2).
template <typename X, int MOD>
__device__ __forceinline__ void load_mod(const void* m, long long o, float* f) {
  constexpr int E = Chunk<X>::E;
  if constexpr (MOD == 1) {
    Chunk<X>::load(static_cast<const X*>(m) + o, f);
  } else {
#pragma unroll
    for (int i = 0; i < E; i += 4) Chunk<float>::load(static_cast<const float*>(m) + o + i, f + i);
  }
}

template <typename X, int T, int NIN, int NOUT, int MOD, int RED>
__device__ __forceinline__ void floor_row(const X* __restrict__ in0, const X* __restrict__ in1, const void* __restrict__ m0,
                                          const void* __restrict__ m1, X* __restrict__ out0, X* __restrict__ out1, int C,
                                          int mod_rows, float eps) {
  constexpr int E = Chunk<X>::E;
  constexpr int CH = 3072 / (E * T);   // every kernel here is built for C = 3072
  const long long row = blockIdx.x, base = row * C, mbase = (row % mod_rows) * static_cast<long long>(C);
  float v[CH][E], s[MOD ? CH : 1][E], h[MOD ? CH : 1][E];
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int o = (c * T + threadIdx.x) * E;
    Chunk<X>::load(in0 + base + o, v[c]);
    if constexpr (NIN == 2) {
      float r[E];
      Chunk<X>::load(in1 + base + o, r);
#pragma unroll
      for (int i = 0; i < E; ++i) v[c][i] += r[i];
    }
    if constexpr (MOD != 0) { load_mod<X, MOD>(m0, mbase + o, s[c]); load_mod<X, MOD>(m1, mbase + o, h[c]); }
  }
  float r = 1.f;
  if constexpr (RED) {
    float q = 0.f;
#pragma unroll
    for (int c = 0; c < CH; ++c)
#pragma unroll
      for (int i = 0; i < E; ++i) q += v[c][i] * v[c][i];
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) q += __shfl_xor_sync(0xffffffffu, q, d);
    __shared__ float part[T / 32];
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = q;
    __syncthreads();
    q = 0.f;
#pragma unroll
    for (int w = 0; w < T / 32; ++w) q += part[w];
    r = rsqrtf(q / C + eps);
  }
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int o = (c * T + threadIdx.x) * E;
    if constexpr (NOUT == 2) Chunk<X>::store(out1 + base + o, v[c]);   // residual_out
    float y[E];
#pragma unroll
    for (int i = 0; i < E; ++i) {
      y[i] = v[c][i] * r;
      if constexpr (MOD != 0) y[i] = y[i] * (1.f + s[c][i]) + h[c][i];
    }
    Chunk<X>::store(out0 + base + o, y);
  }
}

#define FLOOR(NAME, X, T, NIN, NOUT, MOD, RED)                                                                        \
  extern "C" __global__ void __launch_bounds__(T) NAME(const X* in0, const X* in1, const void* m0, const void* m1, X* out0, \
                                                      X* out1, int C, int mod_rows, float eps) {                      \
    floor_row<X, T, NIN, NOUT, MOD, RED>(in0, in1, m0, m1, out0, out1, C, mod_rows, eps);                             \
  }

FLOOR(fl_h_96_11_m0_r1, __nv_bfloat16, 96, 1, 1, 0, 1)
FLOOR(fl_h_96_11_m0_r0, __nv_bfloat16, 96, 1, 1, 0, 0)
FLOOR(fl_h_96_11_m1_r0, __nv_bfloat16, 96, 1, 1, 1, 0)
FLOOR(fl_h_96_11_m2_r0, __nv_bfloat16, 96, 1, 1, 2, 0)
FLOOR(fl_h_96_11_m1_r1, __nv_bfloat16, 96, 1, 1, 1, 1)
FLOOR(fl_h_96_11_m2_r1, __nv_bfloat16, 96, 1, 1, 2, 1)
FLOOR(fl_h_96_22_m0_r1, __nv_bfloat16, 96, 2, 2, 0, 1)
FLOOR(fl_h_96_22_m1_r1, __nv_bfloat16, 96, 2, 2, 1, 1)
FLOOR(fl_h_96_22_m2_r1, __nv_bfloat16, 96, 2, 2, 2, 1)
FLOOR(fl_f_96_11_m0_r1, float, 96, 1, 1, 0, 1)
FLOOR(fl_h_128_11_m0_r1, __nv_bfloat16, 128, 1, 1, 0, 1)
FLOOR(fl_h_128_11_m0_r0, __nv_bfloat16, 128, 1, 1, 0, 0)
FLOOR(fl_h_128_11_m1_r0, __nv_bfloat16, 128, 1, 1, 1, 0)
FLOOR(fl_h_128_11_m2_r0, __nv_bfloat16, 128, 1, 1, 2, 0)
FLOOR(fl_h_128_11_m1_r1, __nv_bfloat16, 128, 1, 1, 1, 1)
FLOOR(fl_h_128_11_m2_r1, __nv_bfloat16, 128, 1, 1, 2, 1)
FLOOR(fl_h_128_22_m0_r1, __nv_bfloat16, 128, 2, 2, 0, 1)
FLOOR(fl_h_128_22_m1_r1, __nv_bfloat16, 128, 2, 2, 1, 1)
FLOOR(fl_h_128_22_m2_r1, __nv_bfloat16, 128, 2, 2, 2, 1)
FLOOR(fl_f_128_11_m0_r1, float, 128, 1, 1, 0, 1)
FLOOR(fl_h_192_11_m0_r1, __nv_bfloat16, 192, 1, 1, 0, 1)
FLOOR(fl_h_192_11_m0_r0, __nv_bfloat16, 192, 1, 1, 0, 0)
FLOOR(fl_h_192_11_m1_r0, __nv_bfloat16, 192, 1, 1, 1, 0)
FLOOR(fl_h_192_11_m2_r0, __nv_bfloat16, 192, 1, 1, 2, 0)
FLOOR(fl_h_192_11_m1_r1, __nv_bfloat16, 192, 1, 1, 1, 1)
FLOOR(fl_h_192_11_m2_r1, __nv_bfloat16, 192, 1, 1, 2, 1)
FLOOR(fl_h_192_22_m0_r1, __nv_bfloat16, 192, 2, 2, 0, 1)
FLOOR(fl_h_192_22_m1_r1, __nv_bfloat16, 192, 2, 2, 1, 1)
FLOOR(fl_h_192_22_m2_r1, __nv_bfloat16, 192, 2, 2, 2, 1)
FLOOR(fl_f_192_11_m0_r1, float, 192, 1, 1, 0, 1)
FLOOR(fl_h_384_11_m0_r1, __nv_bfloat16, 384, 1, 1, 0, 1)
FLOOR(fl_h_384_11_m0_r0, __nv_bfloat16, 384, 1, 1, 0, 0)
FLOOR(fl_h_384_11_m1_r0, __nv_bfloat16, 384, 1, 1, 1, 0)
FLOOR(fl_h_384_11_m2_r0, __nv_bfloat16, 384, 1, 1, 2, 0)
FLOOR(fl_h_384_11_m1_r1, __nv_bfloat16, 384, 1, 1, 1, 1)
FLOOR(fl_h_384_11_m2_r1, __nv_bfloat16, 384, 1, 1, 2, 1)
FLOOR(fl_h_384_22_m0_r1, __nv_bfloat16, 384, 2, 2, 0, 1)
FLOOR(fl_h_384_22_m1_r1, __nv_bfloat16, 384, 2, 2, 1, 1)
FLOOR(fl_h_384_22_m2_r1, __nv_bfloat16, 384, 2, 2, 2, 1)
FLOOR(fl_f_384_11_m0_r1, float, 384, 1, 1, 0, 1)
