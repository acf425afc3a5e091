#pragma once
// A deliberately wrong gated_act solution (tests/gpu/gated_act_test.cpp): the halves are taken
// in the other order, the slip between the GLU conventions (FlashInfer's act(x[:, :d]) * x[:, d:]
// against diffusers' GEGLU x[:, :d] * gelu(x[:, d:])): every gated form activates the half that
// it should multiply by. The ungated gelu_tanh has no halves and comes out right, so the run must
// call every gated case incorrect, naming 'out', and every gelu_tanh case correct.
// The solution's template and launch (grid = rows * ceil_div(cols / VEC, B * U), block = B, with
// B, U = MUL_BLOCK, MUL_UNROLL for the `*_and_mul` forms, BLOCK, UNROLL for the others), so ako
// launches it in the solution's place; plain code, one element at a time.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Act { gelu_tanh_and_mul, silu_and_mul, geglu, gelu_tanh };

namespace gated_act_broken_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store(__half* p, float v) { *p = __float2half_rn(v); }

__device__ __forceinline__ float gelu_tanh(float v) {
  return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}
__device__ __forceinline__ float silu(float v) { return v / (1.0f + expf(-v)); }
__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f)); }

}  // namespace gated_act_broken_detail

template <typename T, Act ACT, int BLOCK_, int VEC, int UNROLL_, int MUL_BLOCK, int MUL_UNROLL>
__global__ void gated_act_kernel(T* out, const T* x, int rows, int cols) {
  using namespace gated_act_broken_detail;
  constexpr bool kMul = ACT == Act::gelu_tanh_and_mul || ACT == Act::silu_and_mul;
  constexpr int BLOCK = kMul ? MUL_BLOCK : BLOCK_, UNROLL = kMul ? MUL_UNROLL : UNROLL_;
  const int tile = BLOCK * UNROLL * VEC;  // elements per block
  const int tiles = (cols / VEC + BLOCK * UNROLL - 1) / (BLOCK * UNROLL);
  const long long row = blockIdx.x / tiles;
  if (row >= rows) return;
  const int begin = static_cast<int>(blockIdx.x - row * tiles) * tile;
  const int end = begin + tile < cols ? begin + tile : cols;
  constexpr bool kGated = ACT != Act::gelu_tanh;
  const T* x_row = x + row * (kGated ? 2LL * cols : static_cast<long long>(cols));
  for (int c = begin + threadIdx.x; c < end; c += BLOCK) {
    float y;
    if constexpr (kGated) {
      const float first = to_float(x_row[c]), second = to_float(x_row[cols + c]);  // swapped below
      if constexpr (ACT == Act::gelu_tanh_and_mul) y = gelu_tanh(second) * first;
      else if constexpr (ACT == Act::silu_and_mul) y = silu(second) * first;
      else y = second * gelu_erf(first);
    } else {
      y = gelu_tanh(to_float(x_row[c]));
    }
    store(out + row * cols + c, y);
  }
}
