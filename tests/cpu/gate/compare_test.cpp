// The two comparisons on their own: timing (threshold AND noise) and resource budgets.
#include <gtest/gtest.h>

#include "gate/compare.hpp"
#include "gate_fixtures.hpp"

namespace ako::gate {
namespace {

using testing::timing;

// An entry timed with the IQM (its median equal: only the IQM may be read).
BaselineTiming base(double iqm_us, double ci_rel = 0.002) { return {iqm_us, ci_rel, 200, "cupti", true, iqm_us}; }

// An entry written before the IQM: no iqm_us, its ci_rel the median's.
BaselineTiming before_iqm(double median_us, double ci_rel = 0.002) { return {median_us, ci_rel, 200, "cupti", true}; }

// A fresh run whose IQM and median differ (a two-mode kernel), each with its own CI.
TimingStats two_centres(double iqm_us, double iqm_ci, double median_us, double median_ci) {
  TimingStats t = timing(iqm_us, iqm_ci);
  t.median_us = median_us;
  t.median_ci_rel = median_ci;
  return t;
}

TEST(CompareTiming, SlowdownBeyondThresholdAndNoiseFails) {
  const auto c = compare_timing(base(10.0), timing(10.8), 3.0);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NEAR(c.change_pct, 8.0, 1e-9);
  EXPECT_NE(c.detail.find("regression"), std::string::npos) << c.detail;
}

TEST(CompareTiming, SlowdownInsideTheNoiseIsNotARegression) {
  // 8% slower, but each run's median is only known to +-6%: the intervals overlap.
  const auto c = compare_timing(base(10.0, 0.06), timing(10.8, 0.06), 3.0);
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_NE(c.detail.find("inside the noise"), std::string::npos) << c.detail;
}

TEST(CompareTiming, SmallRealSlowdownUnderTheThresholdPasses) {
  // 2% slower, far beyond a 0.2% noise: real, but under the 3% threshold.
  const auto c = compare_timing(base(10.0), timing(10.2), 3.0);
  EXPECT_EQ(c.status, CheckStatus::pass);
  EXPECT_NE(c.detail.find("within the threshold"), std::string::npos) << c.detail;
}

TEST(CompareTiming, SpeedupIsReportedAsImproved) {
  const auto c = compare_timing(base(10.0), timing(8.0), 3.0);
  EXPECT_EQ(c.status, CheckStatus::improved);
  EXPECT_NEAR(c.change_pct, -20.0, 1e-9);
  EXPECT_NE(c.detail.find("faster"), std::string::npos);
}

TEST(CompareTiming, NoiseIsBothRunsTogether) {
  const auto c = compare_timing(base(10.0, 0.01), timing(10.0, 0.02), 3.0);
  EXPECT_NEAR(c.noise_pct, 3.0, 1e-9);
}

TEST(CompareTiming, IqmsAreComparedNotMedians) {
  // The run's median sits 8% above the entry (a two-mode valley), its IQM 1% above: the IQMs decide.
  const auto c = compare_timing(base(10.0), two_centres(10.1, 0.002, 10.8, 0.002), 3.0);
  EXPECT_EQ(c.status, CheckStatus::pass) << c.detail;
  EXPECT_NEAR(c.change_pct, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(c.base_us, 10.0);
  EXPECT_DOUBLE_EQ(c.now_us, 10.1);
  EXPECT_EQ(c.detail.find("(medians)"), std::string::npos) << c.detail;
}

TEST(CompareTiming, AnEntryTimedBeforeTheIqmIsComparedOnMedians) {
  // The same run against an entry without an IQM: its median (10.0) against the run's median
  // (10.8) with the median's CI, like with like: an 8% regression.
  const auto c = compare_timing(before_iqm(10.0), two_centres(10.1, 0.002, 10.8, 0.002), 3.0);
  EXPECT_EQ(c.status, CheckStatus::fail) << c.detail;
  EXPECT_NEAR(c.change_pct, 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(c.now_us, 10.8);
  EXPECT_NE(c.detail.find("10.00 -> 10.80 us (medians)"), std::string::npos) << c.detail;
  // The noise is the median's CI (8%: 10.8 +- 0.86 reaches 10.0), not the IQM's (0.2%): only a warning.
  EXPECT_EQ(compare_timing(before_iqm(10.0), two_centres(10.1, 0.002, 10.8, 0.08), 3.0).status, CheckStatus::warn);
}

TEST(CompareTiming, ThresholdIsRespected) {
  EXPECT_EQ(compare_timing(base(10.0), timing(10.8), 10.0).status, CheckStatus::pass);
  EXPECT_EQ(compare_timing(base(10.0), timing(10.8), 5.0).status, CheckStatus::fail);
}

TEST(CompareTiming, AChangeUnderTheFloorIsWithinTheThresholdWhateverItsPercentage) {
  // rope's 2 us case on another H200: 3.3% slower, far beyond each run's 0.2% noise, 66 ns.
  const auto c = compare_timing(base(2.0), timing(2.066), 3.0, kDefaultMinChangeUs);
  EXPECT_EQ(c.status, CheckStatus::pass) << c.detail;
  EXPECT_NE(c.detail.find("within the 0.100 us floor"), std::string::npos) << c.detail;
  // without the floor the same change fails, and a speed-up under it is not called one
  EXPECT_EQ(compare_timing(base(2.0), timing(2.066), 3.0, 0.0).status, CheckStatus::fail);
  EXPECT_EQ(compare_timing(base(2.0), timing(1.934), 3.0, kDefaultMinChangeUs).status, CheckStatus::pass);
  // 0.2 us on the same kernel is 10%: beyond the floor, a regression
  EXPECT_EQ(compare_timing(base(2.0), timing(2.2), 3.0, kDefaultMinChangeUs).status, CheckStatus::fail);
  // the floor never hides a large kernel's slowdown: 8% of 10 us is 0.8 us
  EXPECT_EQ(compare_timing(base(10.0), timing(10.8), 3.0, kDefaultMinChangeUs).status, CheckStatus::fail);
}

KernelResources res(int regs, int spill_st, int spill_ld, int stack, int shared) {
  KernelResources r;
  r.registers = regs;
  r.spill_stores = spill_st;
  r.spill_loads = spill_ld;
  r.stack_bytes = stack;
  r.shared_bytes = shared;
  return r;
}

TEST(CompareResources, SameAsBudgetPasses) {
  const auto c = compare_resources({40, 0, 0, 0, 8}, res(40, 0, 0, 0, 8));
  EXPECT_EQ(c.status, CheckStatus::pass) << c.detail;
}

TEST(CompareResources, AKernelThatStartsSpillingFails) {
  const auto c = compare_resources({40, 0, 0, 0, 8}, res(40, 16, 16, 16, 8));
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.detail.find("starts spilling"), std::string::npos) << c.detail;
}

TEST(CompareResources, MoreRegistersOrSharedThanBudgetFails) {
  const auto r = compare_resources({40, 0, 0, 0, 8}, res(48, 0, 0, 0, 8));
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("registers 48 > budget 40"), std::string::npos) << r.detail;
  EXPECT_EQ(compare_resources({40, 0, 0, 0, 8}, res(40, 0, 0, 0, 1024)).status, CheckStatus::fail);
}

TEST(CompareResources, StackFrameWithoutSpillsFails) {
  // A dynamically indexed register array moves to local memory: no spill, still slow.
  const auto c = compare_resources({40, 0, 0, 0, 8}, res(40, 0, 0, 64, 8));
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.detail.find("local memory"), std::string::npos) << c.detail;
}

TEST(CompareResources, FewerRegistersIsAnImprovement) {
  EXPECT_EQ(compare_resources({40, 0, 0, 0, 8}, res(32, 0, 0, 0, 8)).status, CheckStatus::improved);
}

TEST(CompareResources, UnknownFieldsAreSkippedAndNamed) {
  const auto c = compare_resources({40, -1, -1, -1, 8}, res(40, 0, 0, 0, 8));
  EXPECT_EQ(c.status, CheckStatus::pass);
  EXPECT_NE(c.detail.find("not compared (unknown): spill stores"), std::string::npos) << c.detail;
  EXPECT_EQ(compare_resources({-1, -1, -1, -1, -1}, res(40, 0, 0, 0, 8)).status, CheckStatus::skipped);
}

}  // namespace
}  // namespace ako::gate
