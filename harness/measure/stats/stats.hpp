#pragma once
// Statistics of timing samples and the rule that decides when to stop sampling.
//
// Kernel times are skewed (a floor set by the hardware, a tail of interruptions), so the
// centre reported is the median and its precision is a distribution-free 95% confidence
// interval from order statistics: with n samples sorted ascending, the 1-based ranks
// n/2 - 1.96*sqrt(n)/2 (rounded down) and 1 + n/2 + 1.96*sqrt(n)/2 (rounded up), clamped to
// [1, n], bound the median with about 95% coverage (normal approximation of the binomial).
// ci_rel is that interval's half-width divided by the median.
#include <optional>
#include <vector>

#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::measure {

// Below this many samples even the widest interval (min, max) covers the median with less
// than 95% probability (1 - 2 * 0.5^n < 0.95 for n < 6), so no CI can claim stability.
inline constexpr int kMinSamplesForCi = 6;

// Median's 95% confidence interval (microseconds).
struct MedianInterval {
  double median = 0, low = 0, high = 0;
  double half_width() const { return (high - low) / 2; }
};

// Interval of non-empty samples; the vector is reordered (partially sorted), not copied.
// Throws ako::Error on an empty vector.
MedianInterval median_interval(std::vector<double>& samples_us);

// Fills samples, median_us, min_us, max_us, mean_us, stdev_us (sample stdev, n - 1) and ci_rel.
// The caller sets method, cold_l2, warmup, stable and kernels_per_sample. An empty input gives
// all zeros. Throws ako::Error on a NaN or infinite sample (a broken measurement, never noise).
// ci_rel is 1 when the median is 0 but the samples differ (no relative precision exists).
TimingStats summarize_samples(std::vector<double> samples_us);

struct StopDecision {
  bool stop = false;
  bool stable = false;   // stopped because the median is precise enough (not on a budget)
};

// The stopping rule, checked after every sample:
//   stable stop: n >= max(min_samples, kMinSamplesForCi) and ci_rel < target_ci_rel;
//   budget stop: n >= max_samples or elapsed_s >= max_time_s (stable = false).
// The stable test wins when both hold. Cost is O(n) (selection, no full sort).
StopDecision should_stop(const std::vector<double>& samples_us, double elapsed_s,
                         const exec::TimingOptions& opt);

// A GPU that finished timing a case less than this long ago counts as busy (warm_up_ms).
// Between two cases the worker only validates the next one (2-50 ms on the H200).
inline constexpr double kBusyGapS = 0.1;

// The warm-up wall time (ms) of the next timed case: opt.warmup_ms, or 0 when the previous
// case's samples ended less than kBusyGapS ago (`since_last_s`; nullopt: none timed yet). The
// wall time exists to bring an idle GPU up; the warm-up launches (warmup_runs) run regardless
// and the clock is checked before the samples either way.
double warm_up_ms(const exec::TimingOptions& opt, std::optional<double> since_last_s);

// True when the two medians are indistinguishable at the measurement's own precision: their
// confidence intervals, rebuilt as median +- half-width with half-width = max(ci_rel,
// floor_rel) * median, overlap. floor_rel sets a minimum noise band for comparisons across
// runs (run-to-run drift, clocks, thermal state) that one run's CI cannot see; the gate uses it
// to demand a slowdown beyond, say, 1% before calling it real. Stats with no samples are never
// within noise of anything (there is no evidence that they agree).
bool within_noise(const TimingStats& a, const TimingStats& b, double floor_rel = 0.0);

}  // namespace ako::measure
