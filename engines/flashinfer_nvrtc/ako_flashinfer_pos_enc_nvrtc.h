#pragma once
// Included by ako's adapter of FlashInfer's RoPE kernels (input/rope/peers/flashinfer_rope.cuh)
// after ako_flashinfer_nvrtc.h and before flashinfer/pos_enc.cuh, whose #include closure
// (layout.cuh, page.cuh, fastdiv.cuh: the paged-KV helpers beside the RoPE kernels) needs two
// more things NVRTC lacks. No RoPE kernel uses either; they only have to parse:
// - functions marked `__host__` alone (get_qkv_strides, uint_fastdiv's constructor, paged_kv_t's
//   constructors): NVRTC refuses them ("not allowed in JIT mode"). `__host__` is emptied, so with
//   -default-device they parse as device functions; `__host__ __device__` ones stay device ones.
// - cuda::fast_mod_div (fastdiv.cuh), which libcu++ has from CCCL 3.1 on; the CUDA 13.0 toolkit
//   ships CCCL 3.0. A plain-division stand-in is declared only where it is missing.
#include <cuda/cmath>
#include <cuda/std/version>

#if CCCL_VERSION < 3001000
namespace cuda {
template <typename T>
struct fast_mod_div {
  T divisor;
  __device__ fast_mod_div(T d) : divisor(d) {}
};
template <typename T>
__device__ T operator/(T n, const fast_mod_div<T>& d) {
  return n / d.divisor;
}
}  // namespace cuda
#endif

#undef __host__
#define __host__
