#pragma once
// <sgl_kernel/tensor.h> for NVRTC. The real header is SGLang's host-side tensor checking on
// tvm-ffi (TensorMatcher, SymbolicSize, ...), which NVRTC cannot parse. A task baseline that
// compiles a whole SGLang JIT kernel file (its device kernel and the host `run()` beside it, e.g.
// input/scale_shift/peers/sglang_modulate.cuh) needs the names `run()` uses declared: NVRTC
// parses `run()` but never instantiates, emits or calls it, so declarations of the right shape
// suffice. `ako mirror` drops this include instead (engines/sglang*.json host_includes), so it
// never reaches this file. Written for ako from how SGLang's kernels use the names, not copied.
#include <dlpack/dlpack.h>
#include <sgl_kernel/utils.h>

#include <cstddef>
#include <cstdint>

namespace tvm::ffi {

struct TensorView {
  void* data_ptr() const;
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t numel() const;
  int32_t ndim() const;
  DLDevice device() const;
  DLDataType dtype() const;
};

}  // namespace tvm::ffi

namespace sglang::host {

struct SymbolicSize {
  SymbolicSize(const char* annotation = "");
  SymbolicSize(const SymbolicSize&) = delete;
  int64_t unwrap(DebugInfo info = {}) const;
};

struct SymbolicDevice {
  SymbolicDevice();
  SymbolicDevice(const SymbolicDevice&) = delete;
  template <DLDeviceType... Codes>
  void set_options();
  DLDevice unwrap(DebugInfo info = {}) const;
};

// One extent of a TensorMatcher's shape: a SymbolicSize or a fixed integer.
struct SizeRef {
  SizeRef(SymbolicSize& size);
  SizeRef(int64_t value);
};

struct TensorMatcher {
  template <std::size_t N>
  explicit TensorMatcher(const SizeRef (&shape)[N]);
  TensorMatcher(const TensorMatcher&) = delete;
  template <typename... Ts>
  TensorMatcher&& with_dtype() &&;
  template <DLDeviceType... Codes>
  TensorMatcher&& with_device(SymbolicDevice& device) &&;
  template <DLDeviceType... Codes>
  TensorMatcher&& with_device() &&;
  const TensorMatcher&& verify(tvm::ffi::TensorView view, DebugInfo info = {}) const&&;
};

}  // namespace sglang::host

#define CHECK_HOST(COND) \
  if (COND) {            \
  } else                 \
    ::sglang::host::PanicStream {}
