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

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/protocol/job.hpp"
#include "measure/gpu/l2_flush.hpp"
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
  // Called once the kernel has taken its last sample (its stopping rule was met), before any
  // later launch of the other kernels it is interleaved with, outside every sample's window:
  // the worker re-checks the solution's last timed outputs there, while they are in place.
  std::function<void(CUstream)> after_last_sample;
  // The kernel's launches write its output slots in a cycle of this many (exec/protocol/
  // output_slots.hpp: 2 x the input sets). The kernels of a case stay in step while they all
  // sample; a kernel that ends the first sampling pass early is launched untimed before the
  // next pass until its count is back in step modulo this cycle.
  int launch_cycle = 1;
  // When set, every sample's time (us) is appended, in the order taken (AKO_SAMPLE_LOG); an
  // untimed launch between two sampling passes appends a NaN, so entries and launches align.
  std::vector<double>* raw_samples = nullptr;
};

// One kernel of an interleaved timing (Timer::time_interleaved).
struct TimedKernel {
  LaunchFn launch;
  SampleHooks hooks;
  // Whether every sample must hold a kernel record (CUPTI): false for work that is not a
  // kernel, such as the device-to-device copy of `ako run --size-copy` (a memcpy record).
  bool kernel_record = true;
};

// Reads the SM clock in MHz with a probe kernel on `stream` (synchronises); 0 when unknown.
using ClockProbeFn = std::function<double(CUstream)>;

class Timer {
 public:
  virtual ~Timer() = default;
  // Throws ako::cuda::CudaFault (cuda/fault.hpp) when a launch or sync fails.
  virtual TimingStats time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                           const SampleHooks& hooks = {}) = 0;
  // Every kernel of one case timed with its samples interleaved in rotating order (round r
  // starts with kernel r mod n), so that clock ramps, thermal drift and position in the
  // sequence fall on all of them alike; each kernel stops on its own stopping rule, the wall
  // budget is opt.max_time_s per kernel. `clock` (when not null) receives the SM clock read
  // between sample batches. This default times them one after the other (the events fallback).
  virtual std::vector<TimingStats> time_interleaved(const std::vector<TimedKernel>& kernels, CUstream stream,
                                                    const exec::TimingOptions& opt, ClockReport* clock);
  // The kernel the cold-L2 flush reads its buffer with (measure/gpu/l2_flush.hpp); without
  // one the flush is a memset. Set before the first cold timing.
  void set_l2_evict_kernel(CUfunction evict) { l2_evict_ = evict; }
  // The probe that time_interleaved reads the clock with, and the device's rated clock.
  void set_clock_probe(ClockProbeFn probe, double rated_mhz) {
    clock_probe_ = std::move(probe);
    rated_mhz_ = rated_mhz;
  }
  virtual std::string method() const = 0;   // "cupti" or "events"
  // Why this timer is not (or no longer) using CUPTI; empty while it is.
  virtual std::string note() const { return {}; }

 protected:
  // Warm-up rounds until the probe reads at least kClockReadyFraction of the rated clock
  // (clocks idle far lower: 345 MHz against 1980 on the H100), for at most kClockRampS once.
  void ramp_clock(const std::vector<TimedKernel>& kernels, CUstream stream, L2Flush* flush);
  double probe_clock(CUstream stream) const { return clock_probe_ ? clock_probe_(stream) : 0.0; }
  // The report over the probe readings (empty readings: no report fields but rated_mhz).
  ClockReport clock_report(std::vector<double> readings_mhz) const;
  // The options the warm-up of the next case uses: warmup_ms as measure/stats/stats.hpp's
  // warm_up_ms says (none when this timer finished a case a moment ago).
  exec::TimingOptions warm_up_options(const exec::TimingOptions& opt) const;
  void mark_timed_end() { last_timed_end_ = std::chrono::steady_clock::now(); }

  ClockProbeFn clock_probe_;
  double rated_mhz_ = 0;
  bool ramp_fell_short_ = false;   // a ramp ran out of time once: do not wait again
  std::optional<std::chrono::steady_clock::time_point> last_timed_end_;  // end of the last case's samples
  CUfunction l2_evict_ = nullptr;
};

inline constexpr double kClockReadyFraction = 0.9;
inline constexpr double kClockRampS = 0.5;

// Creates the CUPTI timer when opt.use_cupti and CUPTI initialises, else the events timer;
// `note` receives the reason for a fallback (empty otherwise). l2_bytes sizes the flush buffer (2x L2).
std::unique_ptr<Timer> make_timer(const exec::TimingOptions& opt, size_t l2_bytes, std::string* note);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second / 1e9), from a
// large cuMemcpyDtoDAsync timed repeatedly; the median is returned.
double measure_copy_bandwidth_gbs(CUstream stream);

}  // namespace ako::measure
