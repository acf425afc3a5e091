#pragma once
// Baseline "sglang" of the gated_act task: SGLang 0.5.23's JIT gated activation,
// sglang::act_and_mul_kernel (csrc/elementwise/activation.cuh), what SiluAndMul.forward_cuda and
// the other CUDA callers of kernels/ops/activation/activation.py's silu_and_mul /
// gelu_tanh_and_mul run (run_activation -> ActivationKernel<T, pdl>::run_activation;
// context/gated_act.md). Compiled from the wheel's own file, which scripts/fetch-sglang.sh puts
// in peers/sglang-0.5.23/; nothing of SGLang is copied here.
//
// SGLang's kernel takes one `const __grid_constant__ ActivationParams` struct; ako launches kernels
// with one argument per parameter. As input/qknorm/peers/sglang_qknorm.cuh does, the file is
// included with `__global__` read as `__device__` (and __grid_constant__ as nothing): the kernel
// body becomes a device function, and the thin kernel below fills ActivationParams as
// ActivationKernel::launch() does for run_activation (no expert filter, no clamp, no rounding of
// the activation, out of place) and calls it with kUsePDL = false (ako launches without PDL).
// Launch as launch(): 256 threads, ceil(rows * cols / (16 / sizeof(T)) / 256) blocks (task.json).
// The pair of ako_global_as_device_*.h headers (engines/nvrtc_std/) does that and restores them after.
#include "ako_global_as_device_begin.h"
// Quoted include: ako's JIT cache key follows quoted includes only, so it covers SGLang's file.
#include "csrc/elementwise/activation.cuh"
#include "ako_global_as_device_end.h"

// The task's axis `act` (as input/gated_act/gated_act.cuh names it) and the ActivationKind
// run_activation's op name selects (select_kernel: "silu", "gelu_tanh"). SGLang has no kernel for
// geglu (erf GELU on the second half) nor for the ungated GELU-tanh: the task's `when` keeps
// the baseline off those.
enum class Act { gelu_tanh_and_mul, silu_and_mul, geglu, gelu_tanh };
template <Act A> struct SglangAct;
template <> struct SglangAct<Act::gelu_tanh_and_mul> { static constexpr auto kind = sglang::ActivationKind::kGELUTanh; };
template <> struct SglangAct<Act::silu_and_mul> { static constexpr auto kind = sglang::ActivationKind::kSiLU; };

template <typename T, Act A>
__global__ void sglang_act_and_mul(T* out, const T* x, int rows, int cols) {
  sglang::ActivationParams p{};
  p.input = x;
  p.out = out;
  p.hidden_dim = static_cast<uint32_t>(cols);
  p.num_tokens = static_cast<uint32_t>(rows);
  p.expert_ids = nullptr;
  p.expert_step = 1;
  p.clamp_limit = 0.0f;
  p.sorted_token_ids = nullptr;
  p.num_tokens_post_padded = nullptr;
  p.num_valid_tokens = 0;
  sglang::act_and_mul_kernel<T, SglangAct<A>::kind, false, false>(p);
}
