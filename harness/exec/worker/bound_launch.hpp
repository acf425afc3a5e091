#pragma once
// A LaunchJob bound to a kernel and to concrete device pointers. Arguments are marshalled
// once (buffer -> CUdeviceptr, null -> 0, i32 -> int32_t, i64 -> int64_t, f32 -> float), so
// the timed loop only calls cuLaunchKernelEx.
#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/protocol/job.hpp"

namespace ako::exec {

class BoundLaunch {
 public:
  // buffer_ptrs[i] is the address passed for CaseJob::buffers[i] (0 for an absent buffer).
  // `role` ("reference", "solution") names the launch in fault messages. Opts the kernel into
  // more than 48 KiB of dynamic shared memory when the job asks for it.
  BoundLaunch(CUfunction fn, const LaunchJob& job, const std::vector<CUdeviceptr>& buffer_ptrs,
              std::string role);
  BoundLaunch(const BoundLaunch&) = delete;             // params_ points into slots_
  BoundLaunch& operator=(const BoundLaunch&) = delete;

  CUresult launch(CUstream stream) const;
  // Launches and throws cuda::CudaFault when the launch call fails.
  void launch_checked(CUstream stream) const;
  const std::string& role() const { return role_; }

 private:
  using Slot = std::array<std::byte, 8>;   // large enough for every argument kind
  CUfunction fn_;
  LaunchJob job_;
  std::string role_;
  std::vector<Slot> slots_;
  std::vector<void*> params_;
};

}  // namespace ako::exec
