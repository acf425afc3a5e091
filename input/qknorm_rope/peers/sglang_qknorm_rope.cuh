#pragma once
// Baseline "sglang" of the qknorm_rope task: SGLang 0.5.23's JIT fused_inplace_qknorm_rope
// (csrc/diffusion/qknorm_rope.cuh, QKNormRopeKernel<...>::run, what apply_qk_norm_rope runs;
// context/qknorm_rope.md). Compiled from the wheel's own file, which scripts/fetch-sglang.sh puts
// in peers/sglang-0.5.23/; nothing of SGLang is copied here.
//
// SGLang's kernels take one `const QKNormRopeParams __grid_constant__` struct; ako launches kernels
// with one argument per parameter. As input/qknorm/peers/sglang_qknorm.cuh does, the file is
// included with `__global__` read as `__device__` (and __grid_constant__ as nothing): its kernel
// bodies become device functions, and the thin kernel below fills QKNormRopeParams exactly as
// QKNormRopeKernel::run() does (byte strides; k pre-offset by -num_qo_heads * head_stride_bytes)
// and calls the body run() picks, by SGLang's own kUseHalfWarp:
//   head_dim 128, interleaved, R % 8 == 0: fused_qknorm_rope_half_warp (two heads per warp)
//   otherwise (D 64 / 256, NeoX in fp32):  fused_qknorm_rope_warp (one head per warp)
// Template arguments as the Python wrapper passes them for the task's call: fp32 cache,
// round_norm_before_rope = false, a half-width cache [P, R] (cache_has_full_width = false),
// kUsePDL = false (ako launches without programmatic dependent launch).
// The persistent grid run() computes (256 threads, min(SMs x blocks per SM, blocks needed)) is
// the task.json baseline's `let`. Host run() comes along, parsed and never instantiated.
// The pair of ako_global_as_device_*.h headers (engines/nvrtc_std/) does that and restores them after.
#include "ako_global_as_device_begin.h"
// Quoted include: ako's JIT cache key follows quoted includes only, so it covers SGLang's file.
#include "csrc/diffusion/qknorm_rope.cuh"
#include "ako_global_as_device_end.h"

template <int D, int R, bool NEOX, typename T, typename IdT>
__global__ void sglang_qknorm_rope(T* q, T* k, const T* q_weight, const T* k_weight, const float* cos_sin_cache,
                                   const IdT* positions, int num_tokens, int num_heads, long long q_stride,
                                   long long k_stride, float eps) {
  const long long head_stride_bytes = D * static_cast<long long>(sizeof(T));
  sglang::QKNormRopeParams p;
  p.q_ptr = q;
  p.k_ptr = reinterpret_cast<char*>(k) - num_heads * head_stride_bytes;  // as run() does
  p.q_weight_ptr = q_weight;
  p.k_weight_ptr = k_weight;
  p.cos_sin_cache_ptr = cos_sin_cache;
  p.positions = positions;
  p.q_stride_bytes = q_stride * static_cast<long long>(sizeof(T));
  p.k_stride_bytes = k_stride * static_cast<long long>(sizeof(T));
  p.head_stride_bytes = head_stride_bytes;
  p.num_qo_heads = num_heads;
  p.num_kv_heads = num_heads;
  p.num_tokens = num_tokens;
  p.eps = eps;
  if constexpr (sglang::kUseHalfWarp<D, R, NEOX, false>)
    sglang::fused_qknorm_rope_half_warp<R, NEOX, false, T, float, false, false, IdT, false>(p);
  else
    sglang::fused_qknorm_rope_warp<D, R, NEOX, false, T, float, false, false, false, IdT>(p);
}
