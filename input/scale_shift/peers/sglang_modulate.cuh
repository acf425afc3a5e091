#pragma once
// Baseline "sglang_modulate" of the scale_shift task: SGLang 0.5.23's JIT CUDA adaLN modulate,
// sglang::modulate_scale_shift::modulate_scale_shift_kernel<T, 16 / sizeof(T)>, the kernel
// `modulate_scale_shift()` runs for x [B, L, C] with scale and shift [B, C] in x's dtype (FLUX.1's
// adaLN sites and others; context/sglang_modulation.md). Compiled from the wheel's own file, which
// scripts/fetch-sglang.sh puts in peers/sglang-0.5.23/; nothing of SGLang is copied here. Its host
// `run()` comes along and is parsed, never instantiated: engines/sglang_nvrtc/sgl_kernel/tensor.h
// declares what it names. Include dirs engines/nvrtc_std, engines/sglang_nvrtc, the wheel's
// kernels/jit/include and kernels/jit; options -default-device -DSGL_CUDA_ARCH=900; C++20, as
// SGLang's JIT builds it. The launch `run()` makes: grid (ceil(C / VEC / 256), min(ceil(B * L / 4),
// 65535)), 256 threads, args (out, x, scale, shift, B * L, L, C / VEC) with 64-bit integers.
// Quoted include: ako's JIT cache key follows quoted includes only, so it covers SGLang's file.
#include "csrc/diffusion/modulate_scale_shift.cuh"
