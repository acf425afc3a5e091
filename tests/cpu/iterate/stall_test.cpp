// The stall rule and the assessment that feeds it.
#include <gtest/gtest.h>

#include "iterate/assess.hpp"
#include "results_fixture.hpp"

namespace ako::iterate {
namespace {

using testing::make_run;

IterationRecord rec(int iter, const std::string& status, std::optional<double> gain, const std::string& hyp = "h") {
  IterationRecord r;
  r.iter = iter;
  r.status = status;
  r.gain_vs_best_pct = gain;
  r.hypothesis = hyp;
  return r;
}

TEST(Stall, ThreeIterationsUnderThreePercentStall) {
  const auto c = check_stall({rec(0, "baseline", std::nullopt), rec(1, "improved", 2.9, "a"),
                              rec(2, "no-change", 0.1, "b"), rec(3, "failed", std::nullopt, "c")});
  ASSERT_TRUE(c.stalled);
  ASSERT_EQ(c.last.size(), 3u);
  EXPECT_EQ(c.last[0].iter, 1);
  EXPECT_EQ(c.last[2].iter, 3);
  const std::string w = stall_warning(c);
  for (const char* want : {"STALL: 3 consecutive", "iter 1 (improved, +2.9% vs best): a", "iter 3 (failed, no timing): c"})
    EXPECT_NE(w.find(want), std::string::npos) << want << "\n" << w;
}

TEST(Stall, ARealGainOrTheBaselineBreaksTheRun) {
  EXPECT_FALSE(check_stall({rec(0, "baseline", std::nullopt), rec(1, "regression", -5), rec(2, "improved", 3.0),
                            rec(3, "no-change", 0), rec(4, "no-change", 0)})
                   .stalled);
  EXPECT_FALSE(check_stall({rec(0, "baseline", std::nullopt), rec(1, "no-change", 0), rec(2, "no-change", 0)}).stalled);
  EXPECT_TRUE(check_stall({rec(0, "baseline", std::nullopt), rec(1, "improved", 10), rec(2, "no-change", 0),
                           rec(3, "regression", -2), rec(4, "incorrect", std::nullopt)})
                  .stalled);
  EXPECT_EQ(stall_warning(StallCheck{}), "");
}

TEST(Assess, GainSpeedupAndBestFollowTheRuns) {
  const RunResult base = make_run({100, 200});
  const RunResult best = make_run({80, 160});
  TrajectorySummary s{"demo", 0, 2, {rec(0, "baseline", std::nullopt), rec(1, "no-change", 0), rec(2, "improved", 25)}};
  const History h{&s, &base, &best};

  const Assessment a = assess(make_run({70, 140}), 3, "t", "h", h);
  EXPECT_EQ(a.status, Status::improved);
  EXPECT_EQ(a.best_after, 3);
  EXPECT_NEAR(*a.speedup_vs_baseline, 300.0 / 210.0, 1e-9);
  EXPECT_NEAR(*a.gain_vs_best_pct, (240.0 / 210.0 - 1) * 100, 1e-9);
  EXPECT_DOUBLE_EQ(*a.runtime_us, 210);
  EXPECT_FALSE(a.stall.stalled);

  const Assessment worse = assess(make_run({90, 170}), 3, "t", "h", h);
  EXPECT_EQ(worse.status, Status::regression);
  EXPECT_EQ(worse.best_after, 2);
  EXPECT_LT(*worse.gain_vs_best_pct, 0);

  const Assessment broken = assess(make_run({1, 1}, 0.002, {Verdict::incorrect}), 3, "t", "h", h);
  EXPECT_EQ(broken.status, Status::incorrect);
  EXPECT_FALSE(broken.runtime_us);
  EXPECT_FALSE(broken.gain_vs_best_pct);
  EXPECT_EQ(broken.best_after, 2);
}

TEST(Assess, TheThirdFlatIterationStalls) {
  const RunResult base = make_run({100});
  TrajectorySummary s{"demo", 0, 0, {rec(0, "baseline", std::nullopt), rec(1, "no-change", 0.5), rec(2, "regression", -4)}};
  const Assessment a = assess(make_run({99}), 3, "t", "third try", History{&s, &base, &base});
  EXPECT_EQ(a.status, Status::no_change);
  ASSERT_TRUE(a.stall.stalled);
  EXPECT_EQ(a.stall.last.back().hypothesis, "third try");
}

TEST(Assess, TheBaselineIsItsOwnBest) {
  const Assessment a = assess(make_run({100}), 0, "t", "h", History{});
  EXPECT_EQ(a.status, Status::baseline);
  EXPECT_EQ(a.best_after, 0);
  EXPECT_DOUBLE_EQ(*a.speedup_vs_baseline, 1.0);
  EXPECT_FALSE(a.gain_vs_best_pct);
}

}  // namespace
}  // namespace ako::iterate
