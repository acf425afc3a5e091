#pragma once
// Timing of one kernel launch sequence on the GPU (worker process only).
//
// Protocol (cuda_tech.md §4): warm up (TimingOptions::warmup_runs and warmup_ms), then per
// sample: flush L2 (unless hot) -> sync -> launch -> sync. CUPTI activity records
// (CONCURRENT_KERNEL) give each kernel's GPU time; every kernel record whose start falls
// inside a sample's host window [before launch, after sync] is charged to that sample, so
// kernels on other streams or launched from the device count too. Stop by the rule in
// measure/stats/stats.hpp. When CUPTI is unavailable (another subscriber such as ncu, or
// use_cupti == false) CUDA events around the launch are used and the method says "events".
#include <cuda.h>

#include <functional>
#include <memory>
#include <string>

#include "exec/protocol/job.hpp"
#include "measure/stats/launch_audit.hpp"
#include "result/run_result.hpp"

namespace ako::measure {

// A launch callback enqueues the candidate's work on the given stream and returns the
// CUresult of the launch call.
using LaunchFn = std::function<CUresult(CUstream)>;

// What the caller adds around each launch (warm-up and samples alike).
struct SampleHooks {
  // Called before every launch, before the L2 flush and outside the sample's window, so its
  // work is never charged: the worker poisons the output the next launch will write, so no
  // launch finds the previous answer already in place.
  std::function<void(CUstream)> before_launch;
  // When set, the CUPTI timer audits every sample against it (TimingStats::launch_audit).
  const DeclaredLaunch* declared = nullptr;
};

class Timer {
 public:
  virtual ~Timer() = default;
  // Throws ako::exec::CudaFault (exec/worker/fault.hpp) when a launch or sync fails.
  virtual TimingStats time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                           const SampleHooks& hooks = {}) = 0;
  virtual std::string method() const = 0;   // "cupti" or "events"
  // Why this timer is not (or no longer) using CUPTI; empty while it is.
  virtual std::string note() const { return {}; }
};

// Creates the CUPTI timer when opt.use_cupti and CUPTI initialises, else the events timer;
// `note` receives the reason for a fallback (empty otherwise). l2_bytes sizes the flush buffer (2x L2).
std::unique_ptr<Timer> make_timer(const exec::TimingOptions& opt, size_t l2_bytes, std::string* note);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second / 1e9), from a
// large cuMemcpyDtoDAsync timed repeatedly; the median is returned.
double measure_copy_bandwidth_gbs(CUstream stream);

}  // namespace ako::measure
