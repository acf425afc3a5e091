#include "measure/gpu/event_timer.hpp"

#include <vector>

#include "cuda/cuda_event.hpp"
#include "cuda/fault.hpp"
#include "measure/gpu/sampling.hpp"
#include "measure/stats/stats.hpp"

namespace ako::measure {

// Events cannot see other streams or memsets: hooks.declared is not audited here.
TimingStats EventTimer::time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                             const SampleHooks& hooks) {
  if (!opt.hot && !flush_) flush_ = std::make_unique<L2Flush>(l2_bytes_, l2_evict_);
  L2Flush* flush = opt.hot ? nullptr : flush_.get();
  const int warmup = warm_up(launch, stream, warm_up_options(opt), flush, hooks);

  cuda::CudaEvent start, stop;
  std::vector<double> samples_us;
  StopDecision decision;
  const auto t0 = Clock::now();
  while (!decision.stop) {
    prepare_sample(stream, flush, hooks);
    cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(before sample)");
    start.record(stream);
    launch_checked(launch, stream);
    stop.record(stream);
    cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(after sample)");
    samples_us.push_back(1e3 * cuda::CudaEvent::elapsed_ms(start, stop));
    if (hooks.raw_samples) hooks.raw_samples->push_back(samples_us.back());
    decision = should_stop(samples_us, seconds_since(t0), opt);
  }
  // Events cannot count kernels: 0 says "unknown".
  TimingStats stats = finish_stats(std::move(samples_us), method(), opt, warmup, decision.stable, 0.0);
  if (flush) stats.l2_flush = flush->clean() ? "read" : "memset";
  mark_timed_end();
  return stats;
}

}  // namespace ako::measure
