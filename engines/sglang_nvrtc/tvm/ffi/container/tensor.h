#pragma once
// <tvm/ffi/container/tensor.h> for NVRTC: SGLang's host helpers (sgl_kernel/runtime.cuh) and its
// JIT kernel files name tvm::ffi::TensorView from it; <sgl_kernel/tensor.h> here declares it.
// Parsed, never emitted or called.
#include <sgl_kernel/tensor.h>
