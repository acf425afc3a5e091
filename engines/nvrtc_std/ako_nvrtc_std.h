#pragma once
// Shared by the stand-ins in this folder. NVRTC has no C++ standard library, but CUDA 13 ships
// libcu++ (<cuda/std/...>, found through ako's -I<cuda>/include/cccl), which implements the
// parts an engine's device helpers use (<cstdint>, <type_traits>, <concepts>, <bit>, ...) for
// the device. Each stand-in includes the libcu++ header and this file, which makes the names
// visible where engine code looks for them: std:: (a using-directive: qualified lookup of
// std::is_same_v, std::integral, ... finds cuda::std's) and, for the fixed-width integers, the
// global namespace as <cstdint> does on every host toolchain (engine code writes int64_t).
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace std {
using namespace ::cuda::std;
}  // namespace std

using ::cuda::std::int16_t;
using ::cuda::std::int32_t;
using ::cuda::std::int64_t;
using ::cuda::std::int8_t;
using ::cuda::std::intptr_t;
using ::cuda::std::ptrdiff_t;
using ::cuda::std::size_t;
using ::cuda::std::uint16_t;
using ::cuda::std::uint32_t;
using ::cuda::std::uint64_t;
using ::cuda::std::uint8_t;
using ::cuda::std::uintptr_t;
