#include "measure/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.hpp"

namespace ako::measure {
namespace {

constexpr double kZ95 = 1.96;

// The k-th smallest element (0-based). nth_element is O(n) and leaves the vector partitioned,
// so the next selection on it is cheap.
double select(std::vector<double>& v, std::size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

MedianInterval median_interval(std::vector<double>& samples_us) {
  const std::size_t n = samples_us.size();
  if (n == 0) throw Error("median_interval: no samples");
  const double half_n = static_cast<double>(n) / 2;
  const double spread = kZ95 * std::sqrt(static_cast<double>(n)) / 2;
  // 1-based ranks, clamped to [1, n].
  const auto clamp_rank = [n](double r) {
    return static_cast<std::size_t>(std::clamp(r, 1.0, static_cast<double>(n)));
  };
  const std::size_t low_rank = clamp_rank(std::floor(half_n - spread));
  const std::size_t high_rank = clamp_rank(std::ceil(1 + half_n + spread));

  MedianInterval ci;
  const double upper_mid = select(samples_us, n / 2);
  ci.median = n % 2 == 1 ? upper_mid : (select(samples_us, n / 2 - 1) + upper_mid) / 2;
  ci.low = select(samples_us, low_rank - 1);
  ci.high = select(samples_us, high_rank - 1);
  return ci;
}

TimingStats summarize_samples(std::vector<double> samples_us) {
  TimingStats s;
  s.samples = static_cast<int>(samples_us.size());
  if (samples_us.empty()) return s;
  for (double x : samples_us)
    if (!std::isfinite(x)) throw Error("summarize_samples: non-finite timing sample");

  const double n = static_cast<double>(samples_us.size());
  const auto [lo, hi] = std::minmax_element(samples_us.begin(), samples_us.end());
  s.min_us = *lo;
  s.max_us = *hi;
  s.mean_us = std::accumulate(samples_us.begin(), samples_us.end(), 0.0) / n;
  if (samples_us.size() > 1) {
    double sq = 0;
    for (double x : samples_us) sq += (x - s.mean_us) * (x - s.mean_us);
    s.stdev_us = std::sqrt(sq / (n - 1));
  }

  const MedianInterval ci = median_interval(samples_us);
  s.median_us = ci.median;
  if (ci.median != 0)
    s.ci_rel = ci.half_width() / std::abs(ci.median);
  else
    s.ci_rel = ci.half_width() > 0 ? 1.0 : 0.0;
  return s;
}

StopDecision should_stop(const std::vector<double>& samples_us, double elapsed_s,
                         const exec::TimingOptions& opt) {
  const int n = static_cast<int>(samples_us.size());
  if (n >= std::max(opt.min_samples, kMinSamplesForCi)) {
    std::vector<double> work = samples_us;
    const MedianInterval ci = median_interval(work);
    if (ci.median > 0 && ci.half_width() / ci.median < opt.target_ci_rel) return {true, true};
  }
  if (n >= opt.max_samples || elapsed_s >= opt.max_time_s) return {true, false};
  return {};
}

bool within_noise(const TimingStats& a, const TimingStats& b, double floor_rel) {
  if (a.samples == 0 || b.samples == 0) return false;
  const double half_a = std::max(a.ci_rel, floor_rel) * std::abs(a.median_us);
  const double half_b = std::max(b.ci_rel, floor_rel) * std::abs(b.median_us);
  return std::abs(a.median_us - b.median_us) <= half_a + half_b;
}

double warm_up_ms(const exec::TimingOptions& opt, std::optional<double> since_last_s) {
  return since_last_s && *since_last_s >= 0 && *since_last_s < kBusyGapS ? 0.0 : opt.warmup_ms;
}

}  // namespace ako::measure
