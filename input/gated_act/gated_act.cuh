#pragma once
// Gated activation reference: the trusted baseline the solution is validated against.
//
//   gelu_tanh_and_mul  out[r, c] = T( gelu_tanh(x[r, c]) * x[r, d + c] )        x [rows, 2d]
//   silu_and_mul       out[r, c] = T( silu(x[r, c])      * x[r, d + c] )        x [rows, 2d]
//   geglu              out[r, c] = T( x[r, c] * gelu_erf(x[r, d + c]) )         x [rows, 2d]
//   gelu_tanh          out[r, c] = T( gelu_tanh(x[r, c]) )                      x [rows, d]
//
//   gelu_tanh(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))
//   silu(v)      = v / (1 + exp(-v))
//   gelu_erf(v)  = 0.5 v (1 + erf(v / sqrt(2)))
//
// d = cols. The first three are FlashInfer's / sgl-kernel's gelu_tanh_and_mul and silu_and_mul
// and diffusers' GEGLU (its gate is the second half); the last is nn.GELU(approximate="tanh").
// fp32 math with CUDA's accurate tanhf / expf / erff, one rounding to T at the store
// (context/gated_act.md: where the engines round). Plain on purpose: one block of 256 threads
// per row, scalar accesses, so any cols and any alignment. Launch: grid = rows, block = 256.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// The task's axis `act` names these (task.json: "gated_act_reference<{T}, Act::{act}>").
enum class Act { gelu_tanh_and_mul, silu_and_mul, geglu, gelu_tanh };

namespace gated_act_reference_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(float v) { return v; }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }

__device__ __forceinline__ float gelu_tanh(float v) {
  return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}
__device__ __forceinline__ float silu(float v) { return v / (1.0f + expf(-v)); }
__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f)); }

}  // namespace gated_act_reference_detail

template <typename T, Act ACT>
__global__ void __launch_bounds__(256)
gated_act_reference(T* out, const T* x, int rows, int cols) {
  using namespace gated_act_reference_detail;
  const int row = blockIdx.x;
  if (row >= rows) return;
  constexpr bool kGated = ACT != Act::gelu_tanh;
  const T* x_row = x + static_cast<long long>(row) * (kGated ? 2 * cols : cols);
  T* out_row = out + static_cast<long long>(row) * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float a = to_float(x_row[c]);
    float y;
    if constexpr (ACT == Act::gelu_tanh_and_mul) y = gelu_tanh(a) * to_float(x_row[cols + c]);
    else if constexpr (ACT == Act::silu_and_mul) y = silu(a) * to_float(x_row[cols + c]);
    else if constexpr (ACT == Act::geglu) y = a * gelu_erf(to_float(x_row[cols + c]));
    else y = gelu_tanh(a);
    out_row[c] = from_float<T>(y);
  }
}
