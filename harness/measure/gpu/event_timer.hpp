#pragma once
// The fallback timer: CUDA events recorded around the launch on the launch stream. It sees
// only that stream and adds a few microseconds of launch latency (cuda_tech.md §3), so it is
// used only when CUPTI cannot be (another subscriber such as ncu, or use_cupti == false).
#include <cstddef>
#include <memory>

#include "measure/gpu/l2_flush.hpp"
#include "measure/gpu/timer.hpp"

namespace ako::measure {

class EventTimer final : public Timer {
 public:
  explicit EventTimer(std::size_t l2_bytes) : l2_bytes_(l2_bytes) {}
  TimingStats time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                   const SampleHooks& hooks = {}) override;
  std::string method() const override { return "events"; }

 private:
  std::size_t l2_bytes_;
  std::unique_ptr<L2Flush> flush_;   // allocated on the first cold measurement, then reused
};

}  // namespace ako::measure
