#include "measure/gpu/sampling.hpp"

#include "cuda/fault.hpp"
#include "measure/stats/stats.hpp"

namespace ako::measure {

void launch_checked(const LaunchFn& launch, CUstream stream) {
  cuda::check(launch(stream), "cuLaunchKernelEx(timed kernel)");
}

void prepare_sample(CUstream stream, L2Flush* flush, const SampleHooks& hooks) {
  if (hooks.before_launch) hooks.before_launch(stream);
  if (flush) flush->enqueue(stream);
}

int warm_up(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt, L2Flush* flush,
            const SampleHooks& hooks) {
  const auto t0 = Clock::now();
  int runs = 0;
  while (runs < opt.warmup_runs || seconds_since(t0) * 1e3 < opt.warmup_ms) {
    prepare_sample(stream, flush, hooks);
    launch_checked(launch, stream);
    cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(warm-up)");
    ++runs;
  }
  return runs;
}

int warm_up_interleaved(const std::vector<TimedKernel>& kernels, CUstream stream, const exec::TimingOptions& opt,
                        L2Flush* flush) {
  const auto t0 = Clock::now();
  int rounds = 0;
  while (rounds < opt.warmup_runs || seconds_since(t0) * 1e3 < opt.warmup_ms) {
    for (const auto& k : kernels) {
      prepare_sample(stream, flush, k.hooks);
      launch_checked(k.launch, stream);
    }
    cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(warm-up)");
    ++rounds;
  }
  return rounds;
}

TimingStats finish_stats(std::vector<double> samples_us, const std::string& method,
                         const exec::TimingOptions& opt, int warmup, bool stable,
                         double kernels_per_sample) {
  TimingStats s = summarize_samples(std::move(samples_us));
  s.method = method;
  s.cold_l2 = !opt.hot;
  s.warmup = warmup;
  s.stable = stable;
  s.kernels_per_sample = kernels_per_sample;
  return s;
}

}  // namespace ako::measure
