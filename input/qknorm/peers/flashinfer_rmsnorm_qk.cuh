#pragma once
// Baseline "flashinfer_rmsnorm" of the qknorm task: FlashInfer 0.7.2's RMSNormKernel over rows of
// H * D (across heads: what SGLang 0.5.23 runs for Wan's and LTX's norm_q / norm_k,
// RMSNorm.forward_cuda -> sgl-kernel `rmsnorm`, one launch for q and one for k;
// context/qknorm.md), from the flashinfer-python wheel's flashinfer/norm.cuh
// (scripts/fetch-peers.sh puts it in peers/); nothing of FlashInfer is copied here.
//
// The engine normalises q and k with two launches of one kernel; ako times one launch per
// baseline. So the file is included with `__global__` read as `__device__`: FlashInfer's kernel
// bodies become device functions, and each kernel below runs the two launches as the two rows
// of its grid (blockIdx.y 0: q with q_weight, 1: k with k_weight), each row the grid FlashInfer's
// launcher gives that launch (task.json's `let`). The bodies index by blockIdx.x and gridDim.x
// only, so each row does exactly what its launch would; the one grid spares the second launch's
// gap, so the column is if anything faster than the engine's pair of launches. In place (input ==
// output, the q / k views of the packed qkv with its token stride): each thread reads what it
// later writes, after its whole row is summed, so in place equals FlashInfer's out-of-place call.
// The pair of ako_global_as_device_*.h headers (engines/nvrtc_std/) does that and restores them after.
// Quoted includes: ako's JIT cache key follows quoted includes only, so it covers FlashInfer's
// headers (theirs are quoted too).
#include "ako_flashinfer_nvrtc.h"

#include "ako_global_as_device_begin.h"
#include "flashinfer/norm.cuh"
#include "ako_global_as_device_end.h"

// Across heads (RMSNorm's launcher over rows of H * D: VEC = gcd(16 / sizeof(T), H * D),
// 32 x ceil(min(1024, H * D / VEC) / 32) threads, one block per token, WARPS floats of shared
// memory). q and k have as many heads here (task.json's `when`), so one block shape fits both.
template <uint32_t VEC, typename T>
__global__ void flashinfer_rmsnorm_qk(T* q, T* k, const T* q_weight, const T* k_weight, int num_qo_heads,
                                      int num_kv_heads, long long stride, int head_dim, float eps) {
  const bool is_k = blockIdx.y == 1;
  T* x = is_k ? k : q;
  const uint32_t d = static_cast<uint32_t>((is_k ? num_kv_heads : num_qo_heads) * head_dim);
  flashinfer::norm::RMSNormKernel<VEC, T>(x, const_cast<T*>(is_k ? k_weight : q_weight), x, d,
                                          static_cast<uint32_t>(stride), static_cast<uint32_t>(stride), 0.0f, eps);
}
