#pragma once
// Baseline "sglang" of the qknorm task: SGLang 0.5.23's JIT fused_inplace_qknorm
// (csrc/elementwise/qknorm.cuh, run through sglang.kernels.ops.layernorm.norm.fused_inplace_qknorm
// by the diffusion models' apply_qk_norm; context/qknorm.md). Compiled from the wheel's own file,
// which scripts/fetch-sglang.sh puts in peers/sglang-0.5.23/; nothing of SGLang is copied here.
//
// SGLang's kernels take one `const QKNormParams __grid_constant__` struct; ako launches kernels
// with one argument per parameter. So the wheel's file is included with `__global__` read as
// `__device__` (and __grid_constant__ as nothing): its kernel bodies become device functions, and
// the thin kernels below build QKNormParams exactly as QKNormKernelWarp::run() does (k offset by
// -num_qo_heads * head_dim elements) and call them. Same instructions, one inlined call.
// kUsePDL = false (ako launches without programmatic dependent launch).
//   head_dim 128, 16-byte aligned (always here): fused_qknorm_half_warp, two heads per warp,
//                 grid min(SMs * occupancy, ceil(ceil(rows / 2) / 4)) x 128 threads
//   head_dim 64, 256: fused_qknorm_warp<D>, one head per warp, grid min(SMs * occupancy, ceil(rows / 4))
// with rows = N * (Hq + Hk): the persistent grid run() computes (task.json's `let`).
// Host run() comes along, parsed and never instantiated (engines/sglang_nvrtc declares what it names).
// The pair of ako_global_as_device_*.h headers (engines/nvrtc_std/) does that and restores them after.
#include "ako_global_as_device_begin.h"
// Quoted include: ako's JIT cache key follows quoted includes only, so it covers SGLang's file.
#include "csrc/elementwise/qknorm.cuh"
#include "ako_global_as_device_end.h"

namespace ako_sglang_qknorm {

template <int D>
__device__ __forceinline__ sglang::QKNormParams params(void* q, void* k, const void* q_weight, const void* k_weight,
                                                       unsigned num_tokens, unsigned num_qo_heads,
                                                       unsigned num_kv_heads, long long q_stride,
                                                       long long k_stride, float eps) {
  sglang::QKNormParams p;
  p.q = q;
  p.k = static_cast<char*>(k) - 2 * static_cast<long long>(num_qo_heads) * D;  // as run() does
  p.q_stride = q_stride;
  p.k_stride = k_stride;
  p.num_qo_heads = num_qo_heads;
  p.num_kv_heads = num_kv_heads;
  p.eps = eps;
  p.q_weight = q_weight;
  p.k_weight = k_weight;
  p.num_tokens = num_tokens;
  return p;
}

}  // namespace ako_sglang_qknorm

// The kernel run() picks for head_dim D (this task's operands are always 16-byte aligned).
template <int D, typename T>
__global__ void sglang_qknorm(T* q, T* k, const T* q_weight, const T* k_weight, int num_tokens, int num_qo_heads,
                              int num_kv_heads, long long stride, float eps) {
  if constexpr (D == 128)
    sglang::fused_qknorm_half_warp<false, T>(ako_sglang_qknorm::params<128>(
        q, k, q_weight, k_weight, num_tokens, num_qo_heads, num_kv_heads, stride, stride, eps));
  else
    sglang::fused_qknorm_warp<D, false, T>(ako_sglang_qknorm::params<D>(
        q, k, q_weight, k_weight, num_tokens, num_qo_heads, num_kv_heads, stride, stride, eps));
}
