#pragma once
// <sgl_kernel/utils.h> for NVRTC. The real header is SGLang's host vocabulary (source
// locations, exceptions, streams, ranges), which NVRTC cannot parse; the device headers include
// it for the names their host helpers use. Declared here with the same shape so that NVRTC
// parses those helpers; nothing here runs (NVRTC emits device code only, and the device code
// never calls them). Written for ako from how the names are used, not copied from SGLang.
#include <dlpack/dlpack.h>

#include <concepts>
#include <cstddef>
#include <utility>

namespace sglang::host {

template <typename>
inline constexpr bool dependent_false_v = false;

// Where a check failed; the host build fills it from std::source_location.
struct DebugInfo {};

template <typename... Args>
[[noreturn]] void panic(DebugInfo location, Args&&... args);

template <typename... Args>
struct RuntimeCheck {
  template <typename Cond>
  explicit RuntimeCheck(Cond&&, Args&&..., DebugInfo = {}) {}
  template <typename Cond>
  explicit RuntimeCheck(DebugInfo, Cond&&, Args&&...) {}
};
template <typename Cond, typename... Args>
explicit RuntimeCheck(Cond&&, Args&&...) -> RuntimeCheck<Args...>;
template <typename Cond, typename... Args>
explicit RuntimeCheck(DebugInfo, Cond&&, Args&&...) -> RuntimeCheck<Args...>;

// What CHECK_HOST's and SGL_PANIC's message is streamed into.
struct PanicStream {
  template <typename T>
  PanicStream& operator<<(const T&);
};

template <std::integral T, std::integral U>
constexpr auto div_ceil(T a, U b) {
  return (a + b - 1) / b;
}

}  // namespace sglang::host

// CHECK_CUDA's `else` branch (sgl_kernel/utils.cuh, used by sgl_kernel/runtime.cuh's queries).
#define SGL_PANIC ::sglang::host::PanicStream {}
