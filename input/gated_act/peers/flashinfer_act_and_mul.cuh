#pragma once
// Baseline "flashinfer" of the gated_act task: FlashInfer's gated activation kernel,
// flashinfer::activation::act_and_mul_kernel<T, Activation, vec_size> (flashinfer/activation.cuh),
// with the activation functions silu and gelu_tanh that FlashInfer's JIT generator pastes in
// front of it (flashinfer/jit/activation.py, written verbatim to gen/flashinfer_act_funcs.cuh by
// scripts/fetch-peers.sh). Both come from the flashinfer-python wheel as it ships them, in
// peers/flashinfer-python-<VER>/include; nothing of FlashInfer is copied here. sgl-kernel's
// silu_and_mul / gelu_tanh_and_mul run this kernel. Compile with -default-device,
// -use_fast_math (FlashInfer's JIT default) and the include dirs engines/flashinfer_nvrtc,
// engines/nvrtc_std and that folder; context/gated_act.md gives the launch its generated host
// code makes.
// Quoted includes: ako's JIT cache key follows quoted includes only, so this way it covers
// FlashInfer's headers (theirs are quoted too).
#include "ako_flashinfer_nvrtc.h"

#include "flashinfer/activation.cuh"

// FlashInfer's generated source says `using namespace flashinfer;` before the definitions
// (gelu_tanh calls math::tanh, flashinfer's tanh.approx.f32 wrapper), and so does this one.
// gelu (erf) names M_SQRT1_2, which NVRTC's <cmath> stand-in does not define; the task does not
// launch it, but it must parse.
using namespace flashinfer;
#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440f
#endif
#include "gen/flashinfer_act_funcs.cuh"

// Which of those functions runs each form of the task's axis `act` (the kernel's template
// argument is a function pointer; FlashInfer's launcher names it by the op: silu_and_mul -> silu,
// gelu_tanh_and_mul -> gelu_tanh). FlashInfer has no kernel for geglu (erf GELU on the second
// half) nor for the ungated gelu_tanh: the task's `when` keeps the baseline off those.
enum class Act { gelu_tanh_and_mul, silu_and_mul, geglu, gelu_tanh };
template <Act A> struct FlashInferAct;
template <> struct FlashInferAct<Act::gelu_tanh_and_mul> { static constexpr float (*fn)(const float&) = gelu_tanh; };
template <> struct FlashInferAct<Act::silu_and_mul> { static constexpr float (*fn)(const float&) = silu; };
