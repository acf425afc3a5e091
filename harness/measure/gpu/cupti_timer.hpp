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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "measure/gpu/cupti_activity.hpp"
#include "measure/gpu/event_timer.hpp"
#include "measure/gpu/l2_flush.hpp"
#include "measure/gpu/timer.hpp"
#include "measure/stats/stats.hpp"

namespace ako::measure {

class CuptiTimer final : public Timer {
 public:
  // A sample's host window, and what CUPTI recorded inside it.
  struct Window {
    uint64_t t0_ns = 0, t1_ns = 0;
  };
  struct Charge {
    double gpu_us = 0;
    int kernels = 0;
    std::vector<ActivityRecord> records;   // everything that started inside the window
  };

  // Throws ako::Error when CUPTI cannot be subscribed.
  explicit CuptiTimer(std::size_t l2_bytes);
  TimingStats time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                   const SampleHooks& hooks = {}) override;
  std::vector<TimingStats> time_interleaved(const std::vector<TimedKernel>& kernels, CUstream stream,
                                            const exec::TimingOptions& opt, ClockReport* clock) override;
  std::string method() const override { return fallen_back_ ? "events" : "cupti"; }
  std::string note() const override { return note_; }

 private:
  struct Sampling;
  std::vector<TimingStats> interleaved_with_cupti(const std::vector<TimedKernel>& kernels, CUstream stream,
                                                  const exec::TimingOptions& opt, ClockReport* clock);
  std::vector<size_t> sample_batch(Sampling& s, int rounds, CUstream stream, L2Flush* flush,
                                   std::vector<Window>& windows);
  // `kernel_record`: per window, whether it must hold a kernel record (TimedKernel::kernel_record).
  std::vector<Charge> collect_charges(const std::vector<Window>& windows, const std::vector<bool>& kernel_record,
                                      uint64_t dropped_before);
  // Batches until `decide` has stopped every kernel (measure/stats/stats.hpp, kSamplingPasses);
  // `rounds_of_batch(first batch of the pass)` sizes each batch; `fire_hooks`: run each
  // kernel's after_last_sample when it stops.
  void sample_pass(Sampling& s, CUstream stream, L2Flush* flush, uint64_t dropped_before, bool fire_hooks,
                   const std::function<int(bool)>& rounds_of_batch,
                   const std::function<StopDecision(size_t, double)>& decide);
  // Opens a later pass for the kernels `sampling` names: untimed launches, each prepared and
  // flushed as a sample is, one of each plus as many as bring its launch count back in step
  // with the others' modulo its launch_cycle (`pass_samples`: what each took in the pass
  // before, all having started it in step).
  void open_pass(const std::vector<TimedKernel>& kernels, const std::vector<bool>& sampling,
                 const std::vector<int>& pass_samples, CUstream stream, L2Flush* flush);

  std::unique_ptr<CuptiActivity> activity_;
  std::size_t l2_bytes_;
  std::unique_ptr<L2Flush> flush_;
  EventTimer events_;
  bool fallen_back_ = false;
  std::string note_;
};

}  // namespace ako::measure
