// Session 36: what qknorm's wan13b per-head cases can reach on their layout. The committed qknorm
// kernels (solution/qknorm/qknorm.cuh at the H200 config's wan13b class) beside kernels that move
// the same bytes with no arithmetic: q and k read and written back in place inside the packed qkv
// rows (v skipped: the layout's own access pattern), the same bytes in place contiguously, and a
// contiguous copy to another buffer. Built here with nvcc -cubin; launched from layout_ceiling.py.
#include <cuda_bf16.h>
#include "../../../solution/qknorm/qknorm.cuh"

// In place, one 16-byte chunk a thread, over the q|k part of each token's qkv row. `mask` is 0 at
// run time: the store writes back what was read, but the compiler cannot drop it.
extern "C" __global__ void __launch_bounds__(128) ident_strided(uint4* qkv, long long tokens, int chunks_qk,
                                                                int stride_chunks, unsigned mask) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= tokens * chunks_qk) return;
  const long long t = i / chunks_qk;
  uint4* p = qkv + t * stride_chunks + (i - t * chunks_qk);
  uint4 v = *p;
  v.x ^= mask;
  *p = v;
}

// The same, each thread two chunks of one token (both loads before either store).
extern "C" __global__ void __launch_bounds__(128) ident_strided2(uint4* qkv, long long tokens, int chunks_qk,
                                                                 int stride_chunks, unsigned mask) {
  const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x * 2) + threadIdx.x;
  const long long n = tokens * chunks_qk;
  uint4* p[2];
  uint4 v[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const long long e = i + j * blockDim.x;
    const long long t = e / chunks_qk;
    p[j] = e < n ? qkv + t * stride_chunks + (e - t * chunks_qk) : nullptr;
    if (p[j]) v[j] = *p[j];
  }
#pragma unroll
  for (int j = 0; j < 2; ++j)
    if (p[j]) {
      v[j].x ^= mask;
      *p[j] = v[j];
    }
}

extern "C" __global__ void __launch_bounds__(128) ident_contig(uint4* buf, long long n, unsigned mask) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4 v = buf[i];
  v.x ^= mask;
  buf[i] = v;
}

extern "C" __global__ void __launch_bounds__(128) copy_contig(const uint4* src, uint4* dst, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// solution/qknorm/configs/device_name=NVIDIA_H200.json, class shape-wan13b-480p: BLOCK 128, GROUP 16,
// ROWS 1, AGROUP 128, AROWS 1, CHUNKS 2, VEC 8, STORE_CS 0.
extern "C" __global__ void __launch_bounds__(128) qknorm_per_head(__nv_bfloat16* q, __nv_bfloat16* k,
                                                                  const __nv_bfloat16* qw, const __nv_bfloat16* kw,
                                                                  int N, int Hq, int Hk, long long stride, float eps) {
  qknorm_rows<__nv_bfloat16, 128, false, 8, 16, 128, 1, 1, false>(q, k, qw, kw, N, Hq, Hk, stride, eps);
}
extern "C" __global__ void __launch_bounds__(128) qknorm_across(__nv_bfloat16* q, __nv_bfloat16* k,
                                                                const __nv_bfloat16* qw, const __nv_bfloat16* kw,
                                                                int N, int Hq, int Hk, long long stride, float eps) {
  qknorm_rows<__nv_bfloat16, 128, true, 8, 128, 128, 1, 2, false>(q, k, qw, kw, N, Hq, Hk, stride, eps);
}
