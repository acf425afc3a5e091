#include "measure/stats/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.hpp"

namespace ako::measure {
namespace {

constexpr double kZ95 = 1.96;
// The normal distribution's 0.975 quantile, to full precision (the t expansion's leading term).
constexpr double kZ975 = 1.959963984540054;

// t(0.975, df) for df = 1..30 (standard tables).
constexpr std::array<double, 30> kT975 = {
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985,  2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
    2.079614,  2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272};

// The k-th smallest element (0-based). nth_element is O(n) and leaves the vector partitioned,
// so the next selection on it is cheap.
double select(std::vector<double>& v, std::size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// half / centre, or 1 when that ratio says nothing (no precision exists).
double relative(double half, double centre) {
  if (!std::isfinite(half)) return 1.0;
  if (centre != 0) return half / std::abs(centre);
  return half > 0 ? 1.0 : 0.0;
}

}  // namespace

double t_quantile_975(int df) {
  if (df < 1) throw Error("t_quantile_975: degrees of freedom must be >= 1");
  if (df <= static_cast<int>(kT975.size())) return kT975[static_cast<std::size_t>(df - 1)];
  // Cornish-Fisher expansion of Student's t quantile in powers of 1/df (Abramowitz & Stegun
  // 26.7.5); beyond 30 degrees of freedom its first four terms are within 1e-5 of the table.
  const double z = kZ975, z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double v = static_cast<double>(df);
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

IqmInterval iqm_interval(std::vector<double>& samples_us) {
  const std::size_t n = samples_us.size();
  if (n == 0) throw Error("iqm_interval: no samples");
  const std::size_t g = static_cast<std::size_t>(std::floor(kIqmTrim * static_cast<double>(n)));
  const std::size_t h = n - 2 * g;
  // Two selections partition the samples into [0, g) <= v[g] <= [g, n-g) <= v[n-g-1] <= [n-g, n):
  // the kept middle, unsorted, without a full sort.
  const double low = select(samples_us, g);
  const std::size_t top = n - g - 1;
  if (top > g)
    std::nth_element(samples_us.begin() + static_cast<std::ptrdiff_t>(g + 1),
                     samples_us.begin() + static_cast<std::ptrdiff_t>(top), samples_us.end());
  const double high = samples_us[top];
  const auto first = samples_us.begin() + static_cast<std::ptrdiff_t>(g);
  const double kept_sum = std::accumulate(first, first + static_cast<std::ptrdiff_t>(h), 0.0);

  IqmInterval out;
  out.kept = static_cast<int>(h);
  out.iqm = kept_sum / static_cast<double>(h);
  if (h < 2) {
    out.half_width = std::numeric_limits<double>::infinity();
    return out;
  }
  // The 25%-winsorized sample: the g lowest become v[g], the g highest v[n-g-1].
  const double gd = static_cast<double>(g), nd = static_cast<double>(n);
  const double w_mean = (gd * low + kept_sum + gd * high) / nd;
  double sq = gd * (low - w_mean) * (low - w_mean) + gd * (high - w_mean) * (high - w_mean);
  for (auto it = first; it != first + static_cast<std::ptrdiff_t>(h); ++it) sq += (*it - w_mean) * (*it - w_mean);
  const double s_w = std::sqrt(sq / (nd - 1));
  const double se = s_w / ((1 - 2 * kIqmTrim) * std::sqrt(nd));
  out.half_width = t_quantile_975(static_cast<int>(h) - 1) * se;
  return out;
}

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

  const MedianInterval med = median_interval(samples_us);
  s.median_us = med.median;
  s.median_ci_rel = relative(med.half_width(), med.median);
  const IqmInterval iqm = iqm_interval(samples_us);
  s.iqm_us = iqm.iqm;
  s.ci_rel = relative(iqm.half_width, iqm.iqm);
  return s;
}

StopDecision should_stop(const std::vector<double>& samples_us, double elapsed_s,
                         const exec::TimingOptions& opt, int passes) {
  const double share = 1.0 / std::max(passes, 1);
  const double max_time_s = opt.max_time_s * share;
  const int n = static_cast<int>(samples_us.size());
  const bool mixed = n >= static_cast<int>(std::ceil(kMixSamples * share)) ||
                     elapsed_s >= std::min(kMixSeconds * share, max_time_s / 2);
  if (n >= std::max(opt.min_samples, kMinSamplesForCi) && mixed) {
    std::vector<double> work = samples_us;
    const IqmInterval ci = iqm_interval(work);
    if (ci.iqm > 0 && ci.half_width / ci.iqm < opt.target_ci_rel * std::sqrt(1.0 / share)) return {true, true};
  }
  if (n >= opt.max_samples * share || elapsed_s >= max_time_s) return {true, false};
  return {};
}

bool later_pass_done(int pass_n, int first_n, double pass_elapsed_s, const exec::TimingOptions& opt, int passes) {
  const double share = 1.0 / std::max(passes, 1);
  return pass_n >= first_n || pass_n >= opt.max_samples * share || pass_elapsed_s >= opt.max_time_s * share;
}

bool passes_agree(const std::vector<double>& pass_iqms_us, double pooled_iqm_us, double target_ci_rel) {
  const size_t k = pass_iqms_us.size();
  if (k < 2) return true;
  const double mean = std::accumulate(pass_iqms_us.begin(), pass_iqms_us.end(), 0.0) / static_cast<double>(k);
  double ss = 0;
  for (double v : pass_iqms_us) ss += (v - mean) * (v - mean);
  const double se = std::sqrt(ss / static_cast<double>(k - 1)) / std::sqrt(static_cast<double>(k));
  return se <= target_ci_rel * std::abs(pooled_iqm_us);
}

std::vector<int> launches_to_open_pass(const std::vector<int>& pass_samples, const std::vector<int>& cycles) {
  std::vector<int> out(pass_samples.size(), 1);
  if (pass_samples.empty()) return out;
  const int most = *std::max_element(pass_samples.begin(), pass_samples.end());
  for (size_t k = 0; k < pass_samples.size(); ++k) out[k] += (most - pass_samples[k]) % std::max(1, cycles.at(k));
  return out;
}

bool within_noise(const TimingStats& a, const TimingStats& b, double floor_rel) {
  if (a.samples == 0 || b.samples == 0) return false;
  const double half_a = std::max(a.ci_rel, floor_rel) * std::abs(a.iqm_us);
  const double half_b = std::max(b.ci_rel, floor_rel) * std::abs(b.iqm_us);
  return std::abs(a.iqm_us - b.iqm_us) <= half_a + half_b;
}

double warm_up_ms(const exec::TimingOptions& opt, std::optional<double> since_last_s) {
  return since_last_s && *since_last_s >= 0 && *since_last_s < kBusyGapS ? 0.0 : opt.warmup_ms;
}

}  // namespace ako::measure
