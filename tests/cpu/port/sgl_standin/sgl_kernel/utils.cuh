#pragma once
// Stand-in for SGLang's <sgl_kernel/utils.cuh>, written for ako's port tests: the CUDA element
// types, and a LaunchKernel that records each launch (geometry, and each argument converted to the
// kernel's parameter type implicitly, as cudaLaunchKernelEx converts it) instead of launching, so
// the test sees what the generated host glue would launch without a GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <sgl_kernel/utils.h>
#include <tvm/ffi/container/tensor.h>

namespace host {

struct LaunchRecord {
  dim3 grid, block;
  std::size_t smem;
  std::vector<std::string> args;
};

inline std::vector<LaunchRecord>& launches() {
  static std::vector<LaunchRecord> all;
  return all;
}
// Pointers are recorded as byte offsets from here (the test's arena), or "null".
inline const void*& launch_base() {
  static const void* base = nullptr;
  return base;
}

template <typename T>
std::string describe_arg(T v) {
  if constexpr (std::is_pointer_v<T>) {
    if (v == nullptr) return "null";
    return "@" + std::to_string(reinterpret_cast<const char*>(v) - static_cast<const char*>(launch_base()));
  } else if constexpr (std::is_floating_point_v<T>) {
    std::ostringstream os;
    os << v;
    return os.str();
  } else {
    return std::to_string(v);
  }
}

struct LaunchKernel {
  LaunchKernel(dim3 grid, dim3 block, DLDevice, std::size_t smem = 0) : grid_(grid), block_(block), smem_(smem) {}

  template <typename... Params, typename... Args>
  void operator()(void (*)(Params...), Args&&... args) const {
    static_assert(sizeof...(Params) == sizeof...(Args), "one argument per kernel parameter");
    LaunchRecord r{grid_, block_, smem_, {}};
    // Implicit conversions only, as cudaLaunchKernelEx coerces its arguments.
    [&r](Params... coerced) { (r.args.push_back(describe_arg(coerced)), ...); }(std::forward<Args>(args)...);
    launches().push_back(r);
  }

 private:
  dim3 grid_, block_;
  std::size_t smem_;
};

}  // namespace host
