// Session 38, call 4: norm_scale_shift written plainly for text-512-cfg (1024 x 3072, bf16), the broadcast
// layouts (scalar, [C], [B, C] with L = 512), beside ako's kernel in the same call. norm_floor.cu's floor
// (x in, y out, one reduction) ran 0.95x a memcpy of its bytes at 96-192 threads a row, ako's no-affine RMSNorm
// classes about that, but its affine LayerNorm and fp32-modulation classes 1.05-1.20x (call 3). Is the gap the
// extra work those forms must do, or ako's kernel? Here each form does all of it: one row a block, x's 16-byte
// chunks and every broadcast chunk (weight, bias, scale, shift: x's dtype or fp32) loaded up front, LayerNorm
// by two reductions from registers (mean, then the squared deviations), RMSNorm by one, fp32 math, one
// rounding, plain stores.
//   fn_<T>_<layout s|c|bc>_m<0 same | 1 fp32>_a<affine>_<l layer | r rms>
// Built with nvcc -cubin -arch=sm_90a; launched by norm_full.py.
#include <cuda_bf16.h>
using bf = __nv_bfloat16;

__device__ __forceinline__ void ld8(const bf* p, float* f) {
  uint4 u = *reinterpret_cast<const uint4*>(p);
  const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&u);
#pragma unroll
  for (int i = 0; i < 4; ++i) { float2 t = __bfloat1622float2(h[i]); f[2 * i] = t.x; f[2 * i + 1] = t.y; }
}
__device__ __forceinline__ void ld8(const float* p, float* f) {
  float4 a = *reinterpret_cast<const float4*>(p), b = *reinterpret_cast<const float4*>(p + 4);
  f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = a.w; f[4] = b.x; f[5] = b.y; f[6] = b.z; f[7] = b.w;
}
__device__ __forceinline__ void st8(bf* p, const float* f) {
  uint4 u;
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&u);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
  *reinterpret_cast<uint4*>(p) = u;
}

template <int T>
__device__ __forceinline__ float block_sum(float q, float* part) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) q += __shfl_xor_sync(0xffffffffu, q, d);
  __syncthreads();   // part[] may still be read from the previous reduction
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = q;
  __syncthreads();
  q = 0.f;
#pragma unroll
  for (int w = 0; w < T / 32; ++w) q += part[w];
  return q;
}

// LAY 0 scalar, 1 [C], 2 [B, C]; S the modulation's type.
template <int T, int LAY, typename S, bool AFF, bool LAYER>
__device__ __forceinline__ void nss_row(bf* __restrict__ y, const bf* __restrict__ x, const bf* __restrict__ w,
                                        const bf* __restrict__ bias, const S* __restrict__ scale,
                                        const S* __restrict__ shift, int L, int C, float eps) {
  constexpr int CH = 3072 / (8 * T);
  __shared__ float part[T / 32];
  const long long row = blockIdx.x, base = row * C;
  const long long mrow = LAY == 2 ? (row / L) * C : 0;
  float v[CH][8], s[LAY ? CH : 1][8], h[LAY ? CH : 1][8], wv[AFF ? CH : 1][8], bv[AFF && LAYER ? CH : 1][8];
  float s0 = 0.f, h0 = 0.f;
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int o = (c * T + threadIdx.x) * 8;
    ld8(x + base + o, v[c]);
    if constexpr (LAY != 0) { ld8(scale + mrow + o, s[c]); ld8(shift + mrow + o, h[c]); }
    if constexpr (AFF) { ld8(w + o, wv[c]); if constexpr (LAYER) ld8(bias + o, bv[c]); }
  }
  if constexpr (LAY == 0) {
    if constexpr (sizeof(S) == 4) { s0 = scale[0]; h0 = shift[0]; }
    else { s0 = __bfloat162float(scale[0]); h0 = __bfloat162float(shift[0]); }
  }
  float mean = 0.f;
  if constexpr (LAYER) {
    float q = 0.f;
#pragma unroll
    for (int c = 0; c < CH; ++c)
#pragma unroll
      for (int i = 0; i < 8; ++i) q += v[c][i];
    mean = block_sum<T>(q, part) / C;
  }
  float q = 0.f;
#pragma unroll
  for (int c = 0; c < CH; ++c)
#pragma unroll
    for (int i = 0; i < 8; ++i) { const float d = v[c][i] - mean; q += d * d; }
  const float r = rsqrtf(block_sum<T>(q, part) / C + eps);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int o = (c * T + threadIdx.x) * 8;
    float out[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float n = (v[c][i] - mean) * r;
      if constexpr (AFF) { n *= wv[c][i]; if constexpr (LAYER) n += bv[c][i]; }
      const float sc = LAY ? s[c][i] : s0, sh = LAY ? h[c][i] : h0;
      out[i] = n * (1.f + sc) + sh;
    }
    st8(y + base + o, out);
  }
}

#define NSS(NAME, T, LAY, S, AFF, LAYER)                                                                              \
  extern "C" __global__ void __launch_bounds__(T) NAME(bf* y, const bf* x, const bf* w, const bf* b, const S* scale, \
                                                      const S* shift, int L, int C, float eps) {                     \
    nss_row<T, LAY, S, AFF, LAYER>(y, x, w, b, scale, shift, L, C, eps);                                             \
  }

NSS(fn_96_s_m0_a0_l, 96, 0, bf, false, true)
NSS(fn_96_s_m0_a0_r, 96, 0, bf, false, false)
NSS(fn_96_s_m0_a1_l, 96, 0, bf, true, true)
NSS(fn_96_s_m0_a1_r, 96, 0, bf, true, false)
NSS(fn_96_s_m1_a0_l, 96, 0, float, false, true)
NSS(fn_96_s_m1_a0_r, 96, 0, float, false, false)
NSS(fn_96_s_m1_a1_l, 96, 0, float, true, true)
NSS(fn_96_s_m1_a1_r, 96, 0, float, true, false)
NSS(fn_96_c_m0_a0_l, 96, 1, bf, false, true)
NSS(fn_96_c_m0_a0_r, 96, 1, bf, false, false)
NSS(fn_96_c_m0_a1_l, 96, 1, bf, true, true)
NSS(fn_96_c_m0_a1_r, 96, 1, bf, true, false)
NSS(fn_96_c_m1_a0_l, 96, 1, float, false, true)
NSS(fn_96_c_m1_a0_r, 96, 1, float, false, false)
NSS(fn_96_c_m1_a1_l, 96, 1, float, true, true)
NSS(fn_96_c_m1_a1_r, 96, 1, float, true, false)
NSS(fn_96_bc_m0_a0_l, 96, 2, bf, false, true)
NSS(fn_96_bc_m0_a0_r, 96, 2, bf, false, false)
NSS(fn_96_bc_m0_a1_l, 96, 2, bf, true, true)
NSS(fn_96_bc_m0_a1_r, 96, 2, bf, true, false)
NSS(fn_96_bc_m1_a0_l, 96, 2, float, false, true)
NSS(fn_96_bc_m1_a0_r, 96, 2, float, false, false)
NSS(fn_96_bc_m1_a1_l, 96, 2, float, true, true)
NSS(fn_96_bc_m1_a1_r, 96, 2, float, true, false)
NSS(fn_128_s_m0_a0_l, 128, 0, bf, false, true)
NSS(fn_128_s_m0_a0_r, 128, 0, bf, false, false)
NSS(fn_128_s_m0_a1_l, 128, 0, bf, true, true)
NSS(fn_128_s_m0_a1_r, 128, 0, bf, true, false)
NSS(fn_128_s_m1_a0_l, 128, 0, float, false, true)
NSS(fn_128_s_m1_a0_r, 128, 0, float, false, false)
NSS(fn_128_s_m1_a1_l, 128, 0, float, true, true)
NSS(fn_128_s_m1_a1_r, 128, 0, float, true, false)
NSS(fn_128_c_m0_a0_l, 128, 1, bf, false, true)
NSS(fn_128_c_m0_a0_r, 128, 1, bf, false, false)
NSS(fn_128_c_m0_a1_l, 128, 1, bf, true, true)
NSS(fn_128_c_m0_a1_r, 128, 1, bf, true, false)
NSS(fn_128_c_m1_a0_l, 128, 1, float, false, true)
NSS(fn_128_c_m1_a0_r, 128, 1, float, false, false)
NSS(fn_128_c_m1_a1_l, 128, 1, float, true, true)
NSS(fn_128_c_m1_a1_r, 128, 1, float, true, false)
NSS(fn_128_bc_m0_a0_l, 128, 2, bf, false, true)
NSS(fn_128_bc_m0_a0_r, 128, 2, bf, false, false)
NSS(fn_128_bc_m0_a1_l, 128, 2, bf, true, true)
NSS(fn_128_bc_m0_a1_r, 128, 2, bf, true, false)
NSS(fn_128_bc_m1_a0_l, 128, 2, float, false, true)
NSS(fn_128_bc_m1_a0_r, 128, 2, float, false, false)
NSS(fn_128_bc_m1_a1_l, 128, 2, float, true, true)
NSS(fn_128_bc_m1_a1_r, 128, 2, float, true, false)
NSS(fn_192_s_m0_a0_l, 192, 0, bf, false, true)
NSS(fn_192_s_m0_a0_r, 192, 0, bf, false, false)
NSS(fn_192_s_m0_a1_l, 192, 0, bf, true, true)
NSS(fn_192_s_m0_a1_r, 192, 0, bf, true, false)
NSS(fn_192_s_m1_a0_l, 192, 0, float, false, true)
NSS(fn_192_s_m1_a0_r, 192, 0, float, false, false)
NSS(fn_192_s_m1_a1_l, 192, 0, float, true, true)
NSS(fn_192_s_m1_a1_r, 192, 0, float, true, false)
NSS(fn_192_c_m0_a0_l, 192, 1, bf, false, true)
NSS(fn_192_c_m0_a0_r, 192, 1, bf, false, false)
NSS(fn_192_c_m0_a1_l, 192, 1, bf, true, true)
NSS(fn_192_c_m0_a1_r, 192, 1, bf, true, false)
NSS(fn_192_c_m1_a0_l, 192, 1, float, false, true)
NSS(fn_192_c_m1_a0_r, 192, 1, float, false, false)
NSS(fn_192_c_m1_a1_l, 192, 1, float, true, true)
NSS(fn_192_c_m1_a1_r, 192, 1, float, true, false)
NSS(fn_192_bc_m0_a0_l, 192, 2, bf, false, true)
NSS(fn_192_bc_m0_a0_r, 192, 2, bf, false, false)
NSS(fn_192_bc_m0_a1_l, 192, 2, bf, true, true)
NSS(fn_192_bc_m0_a1_r, 192, 2, bf, true, false)
NSS(fn_192_bc_m1_a0_l, 192, 2, float, false, true)
NSS(fn_192_bc_m1_a0_r, 192, 2, float, false, false)
NSS(fn_192_bc_m1_a1_l, 192, 2, float, true, true)
NSS(fn_192_bc_m1_a1_r, 192, 2, float, true, false)
