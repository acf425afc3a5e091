// measure/stats: summary statistics, the IQM's and the median's confidence intervals, the
// stopping rule and the noise comparison, on synthetic samples with known answers.
#include "measure/stats/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "common/error.hpp"

namespace ako::measure {
namespace {

std::vector<double> shuffled_range(int n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 1.0);
  std::shuffle(v.begin(), v.end(), std::mt19937_64(7));
  return v;
}

TEST(SummarizeSamples, EmptyGivesZeros) {
  const TimingStats s = summarize_samples({});
  EXPECT_EQ(s.samples, 0);
  EXPECT_EQ(s.iqm_us, 0);
  EXPECT_EQ(s.median_us, 0);
  EXPECT_EQ(s.ci_rel, 0);
}

TEST(SummarizeSamples, ConstantSamplesHaveNoSpread) {
  const TimingStats s = summarize_samples(std::vector<double>(50, 12.5));
  EXPECT_EQ(s.samples, 50);
  EXPECT_EQ(s.iqm_us, 12.5);
  EXPECT_EQ(s.median_us, 12.5);
  EXPECT_EQ(s.min_us, 12.5);
  EXPECT_EQ(s.max_us, 12.5);
  EXPECT_DOUBLE_EQ(s.mean_us, 12.5);
  EXPECT_EQ(s.stdev_us, 0);
  EXPECT_EQ(s.ci_rel, 0);
  EXPECT_EQ(s.median_ci_rel, 0);
}

TEST(SummarizeSamples, OddAndEvenCountsGiveTheTextbookValues) {
  const TimingStats odd = summarize_samples({5, 1, 4, 2, 3});
  EXPECT_EQ(odd.median_us, 3);
  EXPECT_EQ(odd.min_us, 1);
  EXPECT_EQ(odd.max_us, 5);
  EXPECT_DOUBLE_EQ(odd.mean_us, 3);
  EXPECT_DOUBLE_EQ(odd.stdev_us, std::sqrt(2.5));  // sample stdev (n - 1)
  // n = 5: g = 1 trimmed per end, h = 3 kept {2, 3, 4}: IQM 3. Winsorized {2, 2, 3, 4, 4}: s_w = 1,
  // se = 1 / (0.5 sqrt 5), half-width t(0.975, 2) = 4.302653 times that.
  EXPECT_DOUBLE_EQ(odd.iqm_us, 3);
  EXPECT_NEAR(odd.ci_rel, 4.302653 / (0.5 * std::sqrt(5.0)) / 3, 1e-12);

  const TimingStats even = summarize_samples({4, 1, 3, 2});
  EXPECT_EQ(even.median_us, 2.5);
}

TEST(MedianInterval, UsesOrderStatisticRanks) {
  // n = 100: spread = 1.96 * 10 / 2 = 9.8 -> ranks floor(40.2) = 40 and ceil(60.8) = 61.
  std::vector<double> v = shuffled_range(100);
  const MedianInterval ci = median_interval(v);
  EXPECT_EQ(ci.median, 50.5);
  EXPECT_EQ(ci.low, 40);
  EXPECT_EQ(ci.high, 61);
  EXPECT_NEAR(summarize_samples(shuffled_range(100)).median_ci_rel, 10.5 / 50.5, 1e-12);
}

TEST(MedianInterval, ClampsToTheExtremesForFewSamples) {
  std::vector<double> v = {3, 9, 1};
  const MedianInterval ci = median_interval(v);
  EXPECT_EQ(ci.median, 3);
  EXPECT_EQ(ci.low, 1);
  EXPECT_EQ(ci.high, 9);

  std::vector<double> one = {4};
  const MedianInterval single = median_interval(one);
  EXPECT_EQ(single.low, 4);
  EXPECT_EQ(single.high, 4);

  std::vector<double> none;
  EXPECT_THROW(median_interval(none), Error);
}

TEST(MedianInterval, CoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Exponential(1) has median ln 2; a skewed law, like kernel times.
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> law(1.0);
  const double true_median = std::log(2.0);
  const int reps = 4000;
  int covered = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<double> v(60);
    for (double& x : v) x = law(rng);
    const MedianInterval ci = median_interval(v);
    covered += ci.low <= true_median && true_median <= ci.high;
  }
  const double coverage = static_cast<double>(covered) / reps;
  EXPECT_GT(coverage, 0.93);
  EXPECT_LT(coverage, 0.985);
}

TEST(SummarizeSamples, RejectsNonFiniteSamples) {
  EXPECT_THROW(summarize_samples({1, std::numeric_limits<double>::quiet_NaN()}), Error);
  EXPECT_THROW(summarize_samples({1, std::numeric_limits<double>::infinity()}), Error);
}

TEST(SummarizeSamples, MedianResistsHeavyTails) {
  // 95% of samples near 100 us, 5% interrupted samples at ~1000 us.
  std::mt19937_64 rng(1);
  std::normal_distribution<double> base(100.0, 0.2);
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(i % 20 == 0 ? 1000.0 + i : base(rng));
  const TimingStats s = summarize_samples(v);
  EXPECT_NEAR(s.median_us, 100.0, 0.1);
  EXPECT_NEAR(s.iqm_us, 100.0, 0.1);
  EXPECT_LT(s.ci_rel, 0.002);
  EXPECT_GT(s.mean_us, 140.0);   // the mean is dragged by the tail; the median and the IQM are not
  EXPECT_GT(s.max_us, 1900.0);
}

TEST(SummarizeSamples, ZeroCentreWithSpreadHasNoRelativePrecision) {
  // n = 11: g = 2; the 5 is winsorized to 0, so the IQM's spread is 0 (and the median's CI ranks 1..10: [0, 0]).
  const TimingStats zeros = summarize_samples({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5});
  EXPECT_EQ(zeros.ci_rel, 0);
  EXPECT_EQ(zeros.median_ci_rel, 0);
  const TimingStats around = summarize_samples({-1, 0, 1});
  EXPECT_EQ(around.ci_rel, 1.0);
  EXPECT_EQ(around.median_ci_rel, 1.0);
  EXPECT_EQ(summarize_samples({4}).ci_rel, 1.0);  // one sample: no spread, no interval
}

exec::TimingOptions options(int min_samples, int max_samples, double max_time_s, double target) {
  exec::TimingOptions o;
  o.min_samples = min_samples;
  o.max_samples = max_samples;
  o.max_time_s = max_time_s;
  o.target_ci_rel = target;
  return o;
}

TEST(ShouldStop, ConstantSamplesStopStableAtMinSamples) {
  const auto opt = options(25, 2000, 1.0, 0.005);
  EXPECT_FALSE(should_stop(std::vector<double>(24, 7.0), kMixSeconds, opt).stop);
  const StopDecision d = should_stop(std::vector<double>(25, 7.0), kMixSeconds, opt);
  EXPECT_TRUE(d.stop);
  EXPECT_TRUE(d.stable);
}

TEST(ShouldStop, NeverStableBelowTheFloorOfTwentySamples) {
  EXPECT_GE(kMinSamplesForCi, 20);  // a floor of 6 let a two-mode kernel stop at 12 samples, 1% off
  const auto opt = options(1, 2000, 1.0, 0.005);
  EXPECT_FALSE(should_stop(std::vector<double>(kMinSamplesForCi - 1, 7.0), kMixSeconds, opt).stop);
  EXPECT_TRUE(should_stop(std::vector<double>(kMinSamplesForCi, 7.0), kMixSeconds, opt).stable);
}

// A run that opens with samples of one mode (as wan13b's did on the H200: 20-36 samples 75-80%
// in one mode, a tight CI, an IQM 1.3% off the next run's) may not stop until the samples have
// had time to mix: 64 samples, or 30 ms of sampling, or half of a shorter time budget.
TEST(ShouldStop, AnEarlyRunOfOneModeWaitsForTheMix) {
  std::vector<double> one_mode;
  for (int i = 0; i < kMixSamples - 1; ++i) one_mode.push_back(49.0 + 0.01 * (i % 7));
  const auto opt = options(1, 2000, 1.0, 0.005);
  for (size_t n = kMinSamplesForCi; n <= one_mode.size(); ++n) {
    const std::vector<double> prefix(one_mode.begin(), one_mode.begin() + static_cast<std::ptrdiff_t>(n));
    ASSERT_FALSE(should_stop(prefix, kMixSeconds * 0.9, opt).stop) << "stopped at n=" << n << ", before the mix";
  }
  one_mode.push_back(49.0);
  EXPECT_TRUE(should_stop(one_mode, 0.0, opt).stable) << "64 samples are enough";
  const std::vector<double> twenty(one_mode.begin(), one_mode.begin() + kMinSamplesForCi);
  EXPECT_TRUE(should_stop(twenty, kMixSeconds, opt).stable) << "30 ms of samples are enough";
  // A short budget (the tuner's 10 ms) waits half of it, not 30 ms.
  EXPECT_TRUE(should_stop(twenty, 0.005, options(1, 2000, 0.01, 0.005)).stable);
  EXPECT_FALSE(should_stop(twenty, 0.004, options(1, 2000, 0.01, 0.005)).stop);
}

// The first of kSamplingPasses passes stops as one pass of that many: the mixing floor, the
// sample and time budgets divided by the passes, the CI target widened by sqrt(passes) (the
// pooled samples then reach about the target); one pass is the plain rule.
TEST(ShouldStop, TheFirstOfTwoPassesStopsOnItsShare) {
  const auto opt = options(1, 2000, 1.0, 0.005);
  const std::vector<double> flat(kMixSamples / 2, 49.0);
  EXPECT_FALSE(should_stop(flat, 0.0, opt).stop) << "one pass waits for 64 samples";
  EXPECT_TRUE(should_stop(flat, 0.0, opt, 2).stable) << "the first of two waits for 32";
  EXPECT_FALSE(should_stop(std::vector<double>(kMixSamples / 2 - 1, 49.0), 0.0, opt, 2).stop);
  // A CI of about 0.6% stops the first of two passes (target 0.5% x sqrt 2), not a single pass.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> law(100.0, 1.8);
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(law(rng));
  std::vector<double> work = v;
  const IqmInterval ci = iqm_interval(work);
  const double rel = ci.half_width / ci.iqm;
  ASSERT_GT(rel, 0.005);
  ASSERT_LT(rel, 0.005 * std::sqrt(2.0));
  EXPECT_FALSE(should_stop(v, 0.0, opt).stop);
  EXPECT_TRUE(should_stop(v, 0.0, opt, 2).stable);
  // Budgets: half the time and half the samples.
  const std::vector<double> noisy = {50, 150, 70, 130, 90, 110, 60, 140, 80, 120};
  EXPECT_FALSE(should_stop(noisy, 0.49, opt, 2).stop);
  EXPECT_TRUE(should_stop(noisy, 0.5, opt, 2).stop);
  EXPECT_FALSE(should_stop(noisy, 0.5, opt, 2).stable);
  EXPECT_TRUE(should_stop(noisy, 0.0, options(1, 20, 1.0, 0.005), 2).stop);
  EXPECT_FALSE(should_stop(noisy, 0.0, options(1, 21, 1.0, 0.005), 2).stop);
}

TEST(ShouldStop, ALaterPassTakesAsManySamplesAsTheFirst) {
  const auto opt = options(1, 2000, 1.0, 0.005);
  EXPECT_FALSE(later_pass_done(67, 68, 0.0, opt, 2));
  EXPECT_TRUE(later_pass_done(68, 68, 0.0, opt, 2));
  EXPECT_TRUE(later_pass_done(10, 68, 0.5, opt, 2)) << "its share of the time budget";
  EXPECT_FALSE(later_pass_done(10, 68, 0.49, opt, 2));
  EXPECT_TRUE(later_pass_done(50, 68, 0.0, options(1, 100, 1.0, 0.005), 2)) << "its share of the sample budget";
}

// The kernels of a case write their output slots by their own launch counts, in step while
// they all sample (exec/protocol/output_slots.hpp); a first pass that ended at different counts
// (here 36, 52 and 116 samples, 5 input sets: a cycle of 10, as in the text-512-cfg cases whose
// re-check found the solution's output overwritten before this) is brought back in step.
TEST(SamplingPasses, TheLaunchesThatOpenAPassPutTheKernelsBackInStep) {
  const std::vector<int> cycles = {10, 10, 10};
  for (const std::vector<int>& first : {std::vector<int>{36, 52, 116}, {68, 68, 68}, {20, 21, 22}, {116, 36, 52}}) {
    const std::vector<int> open = launches_to_open_pass(first, cycles);
    ASSERT_EQ(open.size(), first.size());
    for (size_t k = 0; k < first.size(); ++k) {
      EXPECT_GE(open[k], 1) << "every kernel is launched once";
      EXPECT_LE(open[k], cycles[k]) << "never a whole cycle more";
      EXPECT_EQ((first[k] + open[k]) % cycles[k], (first[0] + open[0]) % cycles[0]) << "kernel " << k;
    }
  }
  EXPECT_EQ(launches_to_open_pass({30, 40}, {1, 1}), (std::vector<int>{1, 1})) << "one input set per copy: any count is in step";
}

TEST(SamplingPasses, PassesAgreeWhenTheirMeansStandardErrorIsWithinTheTarget) {
  EXPECT_TRUE(passes_agree({50.0}, 50.0, 0.005)) << "one pass";
  EXPECT_TRUE(passes_agree({49.76, 50.24}, 50.0, 0.005)) << "0.96% apart: se 0.48%";
  EXPECT_FALSE(passes_agree({49.7, 50.3}, 50.0, 0.005)) << "1.2% apart: se 0.6%";
  // A third pass that lands between them brings the standard error down.
  EXPECT_TRUE(passes_agree({49.7, 50.3, 50.0}, 50.0, 0.005));
  EXPECT_FALSE(passes_agree({49.0, 51.0, 50.0, 50.0}, 50.0, 0.005));
}

TEST(ShouldStop, NoisySamplesRunIntoTheSampleBudget) {
  // Uniform noise of +-50% cannot reach a 0.5% CI with 100 samples.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> law(50.0, 150.0);
  std::vector<double> v;
  const auto opt = options(10, 100, 10.0, 0.005);
  for (int i = 0; i < 99; ++i) {
    v.push_back(law(rng));
    ASSERT_FALSE(should_stop(v, 0.0, opt).stop) << "stopped at n=" << v.size();
  }
  v.push_back(law(rng));
  const StopDecision d = should_stop(v, 0.0, opt);
  EXPECT_TRUE(d.stop);
  EXPECT_FALSE(d.stable);
}

TEST(ShouldStop, TimeBudgetStopsUnstable) {
  std::vector<double> v = {50, 150, 70, 130, 90, 110, 60, 140, 80, 120, 100};
  const auto opt = options(10, 2000, 0.25, 0.005);
  EXPECT_FALSE(should_stop(v, 0.249, opt).stop);
  const StopDecision d = should_stop(v, 0.25, opt);
  EXPECT_TRUE(d.stop);
  EXPECT_FALSE(d.stable);
}

TEST(ShouldStop, StableWinsWhenTheBudgetEndsAtTheSameSample) {
  const StopDecision d = should_stop(std::vector<double>(20, 3.0), 5.0, options(10, 20, 0.25, 0.005));
  EXPECT_TRUE(d.stop);
  EXPECT_TRUE(d.stable);
}

TEST(ShouldStop, ModerateNoiseConvergesOnTheTrueCentre) {
  // 2% stdev noise: the IQM's CI shrinks like 1/sqrt(n) and crosses 0.5% well before 2000.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> law(100.0, 2.0);
  const auto opt = options(10, 2000, 1e9, 0.005);
  std::vector<double> v;
  StopDecision d;
  while (!d.stop) {
    v.push_back(law(rng));
    d = should_stop(v, 0.0, opt);
  }
  EXPECT_TRUE(d.stable);
  EXPECT_GT(v.size(), static_cast<size_t>(kMinSamplesForCi));  // 2% noise is not precise enough at the minimum
  EXPECT_LT(v.size(), 2000u);
  const TimingStats s = summarize_samples(v);
  EXPECT_LT(s.ci_rel, 0.005);
  EXPECT_NEAR(s.iqm_us, 100.0, 0.5);
}

TimingStats stats(double iqm, double ci_rel, int samples = 100) {
  TimingStats s;
  s.iqm_us = iqm;
  s.ci_rel = ci_rel;
  s.samples = samples;
  return s;
}

TEST(WithinNoise, OverlappingIntervalsAgree) {
  EXPECT_TRUE(within_noise(stats(100, 0.01), stats(100, 0.01)));
  EXPECT_TRUE(within_noise(stats(100, 0.01), stats(101.5, 0.01)));   // [99,101] vs [100.485,102.515]
  EXPECT_TRUE(within_noise(stats(101.5, 0.01), stats(100, 0.01)));   // symmetric
}

TEST(WithinNoise, SeparatedIntervalsDiffer) {
  EXPECT_FALSE(within_noise(stats(100, 0.002), stats(101, 0.002)));
  EXPECT_FALSE(within_noise(stats(100, 0.01), stats(103, 0.01)));
}

TEST(WithinNoise, FloorWidensTightIntervals) {
  EXPECT_FALSE(within_noise(stats(100, 0.001), stats(101, 0.001)));
  EXPECT_TRUE(within_noise(stats(100, 0.001), stats(101, 0.001), 0.01));
  EXPECT_FALSE(within_noise(stats(100, 0.001), stats(103, 0.001), 0.01));
}

TEST(WithinNoise, NoSamplesIsNoEvidence) {
  EXPECT_FALSE(within_noise(stats(100, 0.01, 0), stats(100, 0.01)));
  EXPECT_FALSE(within_noise(stats(100, 0.01), stats(100, 0.01, 0)));
}


// --- the IQM -------------------------------------------------------------------------------

TEST(TQuantile, MatchesTheTablesAtSmallAndLargeDegreesOfFreedom) {
  EXPECT_NEAR(t_quantile_975(1), 12.706205, 1e-6);
  EXPECT_NEAR(t_quantile_975(2), 4.302653, 1e-6);
  EXPECT_NEAR(t_quantile_975(5), 2.570582, 1e-6);
  EXPECT_NEAR(t_quantile_975(10), 2.228139, 1e-6);
  EXPECT_NEAR(t_quantile_975(30), 2.042272, 1e-6);
  // Beyond the table, the expansion: within 1e-5 of the published values.
  EXPECT_NEAR(t_quantile_975(31), 2.039513, 1e-5);
  EXPECT_NEAR(t_quantile_975(40), 2.021075, 1e-5);
  EXPECT_NEAR(t_quantile_975(60), 2.000298, 1e-5);
  EXPECT_NEAR(t_quantile_975(120), 1.979930, 1e-5);
  EXPECT_NEAR(t_quantile_975(100000), 1.959988, 1e-5);  // z(0.975) = 1.959964 plus (z^3 + z) / (4 df)
  EXPECT_GT(t_quantile_975(9), t_quantile_975(10));  // never 1.96 at small n
  EXPECT_THROW(t_quantile_975(0), Error);
}

TEST(IqmInterval, HandComputedOnEightSamplesWithAnOutlier) {
  // Sorted 9 10 11 11 12 12 13 50: g = 2, kept {11, 11, 12, 12}, IQM 11.5 (the 50 is trimmed).
  // Winsorized 11 11 11 11 12 12 12 12: mean 11.5, s_w = sqrt(2 / 7); se = s_w / (0.5 sqrt 8);
  // half-width t(0.975, h - 1 = 3) = 3.182446 times se.
  std::vector<double> v = {10, 12, 11, 13, 50, 9, 11, 12};
  const IqmInterval ci = iqm_interval(v);
  EXPECT_EQ(ci.kept, 4);
  EXPECT_DOUBLE_EQ(ci.iqm, 11.5);
  EXPECT_NEAR(ci.half_width, 3.182446 * std::sqrt(2.0 / 7) / (0.5 * std::sqrt(8.0)), 1e-9);
  EXPECT_EQ(v.size(), 8u);  // reordered, not copied or shrunk

  std::vector<double> one = {4};
  const IqmInterval single = iqm_interval(one);
  EXPECT_EQ(single.iqm, 4);
  EXPECT_TRUE(std::isinf(single.half_width));
  std::vector<double> none;
  EXPECT_THROW(iqm_interval(none), Error);
}

TEST(IqmInterval, SelectionGivesWhatAFullSortGives) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> law(3.0, 0.3);
  for (int n : {2, 3, 4, 5, 7, 20, 101, 1000}) {
    std::vector<double> v(n);
    for (double& x : v) x = law(rng);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const int g = n / 4;
    double sum = 0;
    for (int i = g; i < n - g; ++i) sum += sorted[i];
    EXPECT_NEAR(iqm_interval(v).iqm, sum / (n - 2 * g), 1e-9) << "n=" << n;
  }
}

TEST(IqmInterval, CoversTheTrueIqmAboutNinetyFivePercentOfTheTime) {
  // Exponential(1), skewed like kernel times: its IQM is 2 [(q1 + 1) 3/4 - (q3 + 1) 1/4] with
  // q1 = ln(4/3), q3 = ln 4.
  const double true_iqm = 2 * ((std::log(4.0 / 3) + 1) * 0.75 - (std::log(4.0) + 1) * 0.25);
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> law(1.0);
  const int reps = 4000;
  int covered = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<double> v(60);
    for (double& x : v) x = law(rng);
    const IqmInterval ci = iqm_interval(v);
    covered += std::abs(ci.iqm - true_iqm) <= ci.half_width;
  }
  const double coverage = static_cast<double>(covered) / reps;
  EXPECT_GT(coverage, 0.92);
  EXPECT_LT(coverage, 0.975);
}

// Two modes 1.6 us apart on 50 us, as rmsnorm's wan13b cases time on the H200 (mixed sample by
// sample), with a small deterministic jitter. `low` of every 200 samples are in the low mode,
// spread evenly through the sequence.
std::vector<double> two_modes(int n, int low_per_200, int offset = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const double mode = (i * low_per_200) % 200 < low_per_200 ? 49.4 : 51.0;
    v.push_back(mode + 0.12 * std::sin(0.7 * (i + offset) + 0.3));
  }
  return v;
}

TEST(TwoModes, HalvesMediansDisagreeWhileTheirIqmsAgree) {
  // Two halves of one run, 104/96 and 96/104 samples in the low/high mode: a chance imbalance.
  const TimingStats a = summarize_samples(two_modes(200, 104));
  const TimingStats b = summarize_samples(two_modes(200, 96, 200));
  EXPECT_GT(std::abs(a.median_us / b.median_us - 1), 0.01)
      << "medians " << a.median_us << " and " << b.median_us << ": each falls in one mode";
  EXPECT_LT(std::abs(a.iqm_us / b.iqm_us - 1), 0.005) << "IQMs " << a.iqm_us << " and " << b.iqm_us;
  EXPECT_NEAR(a.iqm_us, 50.2, 0.25);  // between the modes, where the mass is
}

TEST(TwoModes, TheIqmRuleStopsWellBeforeTheCapWhereTheMedianRuleWouldNot) {
  const std::vector<double> all = two_modes(2000, 100);
  const auto opt = options(10, 2000, 1e9, 0.005);
  std::vector<double> v;
  StopDecision d;
  while (!d.stop) {
    v.push_back(all[v.size()]);
    d = should_stop(v, 0.0, opt);
  }
  EXPECT_TRUE(d.stable);
  EXPECT_LT(v.size(), 400u) << "the IQM's CI should reach 0.5% in ~150 samples";
  EXPECT_NEAR(summarize_samples(v).iqm_us, 50.2, 0.25);
  // The rule before the IQM: the median's order-statistics CI under 0.5%. Its bounds sit in
  // different modes at every n up to the cap, so it would run into the budget.
  for (size_t n = kMinSamplesForCi; n <= all.size(); ++n) {
    std::vector<double> prefix(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    const MedianInterval m = median_interval(prefix);
    ASSERT_GE(m.half_width() / m.median, 0.005) << "the median rule would have stopped at n=" << n;
  }
}

}  // namespace
// The warm-up's wall time is skipped only right after another case's samples.
TEST(WarmUp, WallTimeOnlyForAGpuThatMayBeIdle) {
  exec::TimingOptions opt;
  opt.warmup_ms = 5.0;
  EXPECT_DOUBLE_EQ(warm_up_ms(opt, std::nullopt), 5.0);  // the first case of the worker
  EXPECT_DOUBLE_EQ(warm_up_ms(opt, 0.004), 0.0);          // validation of the next case only
  EXPECT_DOUBLE_EQ(warm_up_ms(opt, kBusyGapS * 0.99), 0.0);
  EXPECT_DOUBLE_EQ(warm_up_ms(opt, kBusyGapS), 5.0);      // long enough for the clock to drop
  EXPECT_DOUBLE_EQ(warm_up_ms(opt, 3.0), 5.0);
  EXPECT_DOUBLE_EQ(warm_up_ms(opt, -1.0), 5.0);           // a clock that went backwards: be safe
}

}  // namespace ako::measure
