#pragma once
// The CUPTI activity timer: every record (kernel, memcpy, memset) whose start lies inside a
// sample's host window [before the launch, after the sync] is charged to that sample, so work
// on other streams (or launched from the device) is charged too; with SampleHooks::declared
// each sample's records are also audited against the declared launch (TimingStats::launch_audit).
//
// If CUPTI stops working mid-run (a flush fails, records are dropped, or a sample receives no
// kernel record), the timer falls back to CUDA events for the rest of the process and says
// why in note().
#include <cstddef>
#include <memory>
#include <string>

#include "measure/gpu/cupti_activity.hpp"
#include "measure/gpu/event_timer.hpp"
#include "measure/gpu/l2_flush.hpp"
#include "measure/gpu/timer.hpp"

namespace ako::measure {

class CuptiTimer final : public Timer {
 public:
  // Throws ako::Error when CUPTI cannot be subscribed.
  explicit CuptiTimer(std::size_t l2_bytes);
  TimingStats time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                   const SampleHooks& hooks = {}) override;
  std::string method() const override { return fallen_back_ ? "events" : "cupti"; }
  std::string note() const override { return note_; }

 private:
  TimingStats time_with_cupti(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                              const SampleHooks& hooks);

  std::unique_ptr<CuptiActivity> activity_;
  std::size_t l2_bytes_;
  std::unique_ptr<L2Flush> flush_;
  EventTimer events_;
  bool fallen_back_ = false;
  std::string note_;
};

}  // namespace ako::measure
