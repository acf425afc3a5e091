#include "exec/worker/bound_launch.hpp"

#include <cstring>

#include "common/error.hpp"
#include "cuda/fault.hpp"

namespace ako::exec {

namespace {

// Beyond this the kernel must opt in (cuda_tech.md §2: 100 KB failed with INVALID_VALUE until
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES was set).
constexpr uint32_t kDefaultDynamicSharedLimit = 48 * 1024;

template <class T>
std::array<std::byte, 8> slot_of(T v) {
  static_assert(sizeof(T) <= 8);
  std::array<std::byte, 8> s{};
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

}  // namespace

BoundLaunch::BoundLaunch(CUfunction fn, const LaunchJob& job, const std::vector<CUdeviceptr>& buffer_ptrs,
                         std::string role)
    : fn_(fn), job_(job), role_(std::move(role)) {
  slots_.reserve(job.args.size());
  for (size_t i = 0; i < job.args.size(); ++i) {
    const ArgJob& a = job.args[i];
    switch (a.kind) {
      case ArgJob::Kind::buffer:
        if (a.buffer < 0 || static_cast<size_t>(a.buffer) >= buffer_ptrs.size())
          throw Error(role_ + " argument " + std::to_string(i) + " names buffer " +
                      std::to_string(a.buffer) + ", but the case has " +
                      std::to_string(buffer_ptrs.size()) + " buffers");
        slots_.push_back(slot_of(buffer_ptrs[a.buffer]));
        break;
      case ArgJob::Kind::null: slots_.push_back(slot_of(CUdeviceptr{0})); break;
      case ArgJob::Kind::i32: slots_.push_back(slot_of(static_cast<int32_t>(a.i))); break;
      case ArgJob::Kind::i64: slots_.push_back(slot_of(static_cast<int64_t>(a.i))); break;
      case ArgJob::Kind::f32: slots_.push_back(slot_of(static_cast<float>(a.f))); break;
    }
  }
  for (Slot& s : slots_) params_.push_back(s.data());
  if (job.shared_bytes > kDefaultDynamicSharedLimit)
    cuda::check(cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(job.shared_bytes)),
          "cuFuncSetAttribute(" + role_ + ", MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

CUresult BoundLaunch::launch(CUstream stream) const {
  CUlaunchConfig cfg{};
  cfg.gridDimX = job_.grid[0];
  cfg.gridDimY = job_.grid[1];
  cfg.gridDimZ = job_.grid[2];
  cfg.blockDimX = job_.block[0];
  cfg.blockDimY = job_.block[1];
  cfg.blockDimZ = job_.block[2];
  cfg.sharedMemBytes = job_.shared_bytes;
  cfg.hStream = stream;
  // cuLaunchKernelEx takes void** but does not write through it.
  return cuLaunchKernelEx(&cfg, fn_, const_cast<void**>(params_.data()), nullptr);
}

void BoundLaunch::launch_checked(CUstream stream) const {
  cuda::check(launch(stream), "cuLaunchKernelEx(" + role_ + ")");
}

}  // namespace ako::exec
