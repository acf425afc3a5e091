#pragma once
// Steps shared by both timers: the checked launch, the warm-up and the sample epilogue.
#include <cuda.h>

#include <chrono>
#include <vector>

#include "exec/protocol/job.hpp"
#include "measure/gpu/l2_flush.hpp"
#include "measure/gpu/timer.hpp"
#include "result/run_result.hpp"

namespace ako::measure {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Enqueues the candidate's work; a failing launch call becomes a cuda::CudaFault.
void launch_checked(const LaunchFn& launch, CUstream stream);

// Untimed launches (each after a flush when `flush` is set, like a sample) until at least
// opt.warmup_runs launches and opt.warmup_ms of wall time; returns the number of launches.
// hooks.before_launch runs before each flush.
int warm_up(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt, L2Flush* flush,
            const SampleHooks& hooks);

// The warm-up of an interleaved timing: rounds over the kernels until each was launched
// opt.warmup_runs times and opt.warmup_ms of wall time passed in all; returns the rounds.
int warm_up_interleaved(const std::vector<TimedKernel>& kernels, CUstream stream, const exec::TimingOptions& opt,
                        L2Flush* flush);

// One sample's preparation, outside its window: hooks.before_launch, then the flush (if any).
void prepare_sample(CUstream stream, L2Flush* flush, const SampleHooks& hooks);

// Statistics of the samples plus the fields the timer knows.
TimingStats finish_stats(std::vector<double> samples_us, const std::string& method,
                         const exec::TimingOptions& opt, int warmup, bool stable,
                         double kernels_per_sample);

}  // namespace ako::measure
