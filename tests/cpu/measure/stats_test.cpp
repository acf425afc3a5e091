// measure/stats: summary statistics, the median's confidence interval, the stopping rule and
// the noise comparison, on synthetic samples with known answers.
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
  EXPECT_EQ(s.median_us, 0);
  EXPECT_EQ(s.ci_rel, 0);
}

TEST(SummarizeSamples, ConstantSamplesHaveNoSpread) {
  const TimingStats s = summarize_samples(std::vector<double>(50, 12.5));
  EXPECT_EQ(s.samples, 50);
  EXPECT_EQ(s.median_us, 12.5);
  EXPECT_EQ(s.min_us, 12.5);
  EXPECT_EQ(s.max_us, 12.5);
  EXPECT_DOUBLE_EQ(s.mean_us, 12.5);
  EXPECT_EQ(s.stdev_us, 0);
  EXPECT_EQ(s.ci_rel, 0);
}

TEST(SummarizeSamples, OddAndEvenCountsGiveTheTextbookValues) {
  const TimingStats odd = summarize_samples({5, 1, 4, 2, 3});
  EXPECT_EQ(odd.median_us, 3);
  EXPECT_EQ(odd.min_us, 1);
  EXPECT_EQ(odd.max_us, 5);
  EXPECT_DOUBLE_EQ(odd.mean_us, 3);
  EXPECT_DOUBLE_EQ(odd.stdev_us, std::sqrt(2.5));  // sample stdev (n - 1)

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
  EXPECT_NEAR(summarize_samples(shuffled_range(100)).ci_rel, 10.5 / 50.5, 1e-12);
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
  EXPECT_LT(s.ci_rel, 0.002);
  EXPECT_GT(s.mean_us, 140.0);   // the mean is dragged by the tail; the median is not
  EXPECT_GT(s.max_us, 1900.0);
}

TEST(SummarizeSamples, ZeroMedianWithSpreadHasNoRelativePrecision) {
  EXPECT_EQ(summarize_samples({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}).ci_rel, 0);  // CI ranks 1..10: [0, 0]
  EXPECT_EQ(summarize_samples({-1, 0, 1}).ci_rel, 1.0);
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
  const auto opt = options(10, 2000, 1.0, 0.005);
  EXPECT_FALSE(should_stop(std::vector<double>(9, 7.0), 0.01, opt).stop);
  const StopDecision d = should_stop(std::vector<double>(10, 7.0), 0.01, opt);
  EXPECT_TRUE(d.stop);
  EXPECT_TRUE(d.stable);
}

TEST(ShouldStop, NeverStableBelowTheCoverageFloor) {
  const auto opt = options(1, 2000, 1.0, 0.005);
  EXPECT_FALSE(should_stop(std::vector<double>(kMinSamplesForCi - 1, 7.0), 0.0, opt).stop);
  EXPECT_TRUE(should_stop(std::vector<double>(kMinSamplesForCi, 7.0), 0.0, opt).stable);
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

TEST(ShouldStop, ModerateNoiseConvergesOnTheTrueMedian) {
  // 1% stdev noise: the median's CI shrinks like 1/sqrt(n) and crosses 0.5% well before 2000.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> law(100.0, 1.0);
  const auto opt = options(10, 2000, 1e9, 0.005);
  std::vector<double> v;
  StopDecision d;
  while (!d.stop) {
    v.push_back(law(rng));
    d = should_stop(v, 0.0, opt);
  }
  EXPECT_TRUE(d.stable);
  EXPECT_GT(v.size(), 10u);     // 1% noise is not precise enough at the minimum
  EXPECT_LT(v.size(), 2000u);
  const TimingStats s = summarize_samples(v);
  EXPECT_LT(s.ci_rel, 0.005);
  EXPECT_NEAR(s.median_us, 100.0, 0.5);
}

TimingStats stats(double median, double ci_rel, int samples = 100) {
  TimingStats s;
  s.median_us = median;
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
