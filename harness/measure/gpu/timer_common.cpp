// What every timer shares: the clock ramp before sampling, the clock report, and the
// one-after-the-other form of time_interleaved that the events fallback uses.
#include <algorithm>

#include "cuda/fault.hpp"
#include "measure/gpu/sampling.hpp"
#include "measure/gpu/timer.hpp"
#include "measure/stats/stats.hpp"

namespace ako::measure {

std::vector<TimingStats> Timer::time_interleaved(const std::vector<TimedKernel>& kernels, CUstream stream,
                                                 const exec::TimingOptions& opt, ClockReport* clock) {
  std::vector<TimingStats> out;
  std::vector<double> readings;
  for (const auto& k : kernels) {
    out.push_back(time(k.launch, stream, opt, k.hooks));
    if (k.hooks.after_last_sample) k.hooks.after_last_sample(stream);
    if (const double mhz = probe_clock(stream); mhz > 0) readings.push_back(mhz);
  }
  if (clock) *clock = clock_report(std::move(readings));
  return out;
}

void Timer::ramp_clock(const std::vector<TimedKernel>& kernels, CUstream stream, L2Flush* flush) {
  // A GPU held below the threshold by its power limit would pay the whole ramp on every case:
  // after one ramp that did not get there, later cases do not wait (throttling is still
  // flagged by clock_report).
  if (!clock_probe_ || rated_mhz_ <= 0 || ramp_fell_short_) return;
  const auto t0 = Clock::now();
  while (probe_clock(stream) < kClockReadyFraction * rated_mhz_) {
    if (seconds_since(t0) >= kClockRampS) {
      ramp_fell_short_ = true;
      return;
    }
    for (const auto& k : kernels) {
      prepare_sample(stream, flush, k.hooks);
      launch_checked(k.launch, stream);
    }
    cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(clock ramp)");
  }
}

exec::TimingOptions Timer::warm_up_options(const exec::TimingOptions& opt) const {
  exec::TimingOptions out = opt;
  std::optional<double> since;
  if (last_timed_end_) since = std::chrono::duration<double>(std::chrono::steady_clock::now() - *last_timed_end_).count();
  out.warmup_ms = warm_up_ms(opt, since);
  return out;
}

ClockReport Timer::clock_report(std::vector<double> readings_mhz) const {
  ClockReport r;
  r.rated_mhz = rated_mhz_;
  r.probes = static_cast<int>(readings_mhz.size());
  if (readings_mhz.empty()) return r;
  std::sort(readings_mhz.begin(), readings_mhz.end());
  r.min_mhz = readings_mhz.front();
  r.max_mhz = readings_mhz.back();
  r.median_mhz = readings_mhz[readings_mhz.size() / 2];
  r.throttled = rated_mhz_ > 0 && r.min_mhz < kThrottleFraction * rated_mhz_;
  return r;
}

}  // namespace ako::measure
