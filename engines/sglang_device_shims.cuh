#pragma once
// ako's device-side stand-ins for the basic vocabulary of SGLang's sgl_kernel/*.cuh headers,
// so that a mirrored kernel's device part compiles with NVRTC on its own (the real headers
// also hold host code, <tvm/ffi/...> and the C++ standard library, which NVRTC cannot parse).
// Written for ako from the documented behaviour of the names, not copied from SGLang.
//
// Covered: SGL_DEVICE, fp16_t / bf16_t / fp32_t, device::kWarpThreads, warp::reduce_sum,
// warp::reduce_max, host::div_ceil, PDLWaitPrimary / PDLTriggerSecondary, pointer::offset.
// A kernel that uses more (tile::Memory, AlignedVector, impl/norm.cuh, ...) fails the
// mirror's NVRTC check, which names what is missing: add it here, or hand-port it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#ifndef SGL_DEVICE
#define SGL_DEVICE __forceinline__ __device__
#endif

namespace ako_sgl_shim {

using fp16_t = __half;
using bf16_t = __nv_bfloat16;
using fp32_t = float;

namespace device {
inline constexpr unsigned kWarpThreads = 32;
}  // namespace device

namespace host {
template <typename T, typename U>
__host__ __device__ constexpr auto div_ceil(T a, U b) { return (a + b - 1) / b; }
}  // namespace host

namespace warp {
// Butterfly sum over groups of kThreads lanes (a power of two up to 32).
template <unsigned kThreads = 32>
SGL_DEVICE float reduce_sum(float v) {
#pragma unroll
  for (unsigned offset = kThreads / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
template <unsigned kThreads = 32>
SGL_DEVICE float reduce_max(float v) {
#pragma unroll
  for (unsigned offset = kThreads / 2; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
}  // namespace warp

// Programmatic dependent launch: wait for the previous kernel's results / let the next start.
template <bool kUsePDL>
SGL_DEVICE void PDLWaitPrimary() {
#if __CUDA_ARCH__ >= 900
  if constexpr (kUsePDL) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
template <bool kUsePDL>
SGL_DEVICE void PDLTriggerSecondary() {
#if __CUDA_ARCH__ >= 900
  if constexpr (kUsePDL) asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

namespace pointer {
// Byte-free element offset: `offset<T>(p, i)` is p advanced by i elements of T.
template <typename T = char, typename... U>
SGL_DEVICE void* offset(void* p, U... i) { return static_cast<T*>(p) + (i + ... + 0); }
template <typename T = char, typename... U>
SGL_DEVICE const void* offset(const void* p, U... i) { return static_cast<const T*>(p) + (i + ... + 0); }
}  // namespace pointer

}  // namespace ako_sgl_shim

// Older SGLang trees use these names at global scope, newer ones inside namespace sglang.
using namespace ako_sgl_shim;
namespace sglang {
using namespace ::ako_sgl_shim;
}  // namespace sglang
