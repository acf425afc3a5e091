// The stall rule replayed along a trajectory: where it fires (the third iteration in a row
// under +3% over the best, and every flat one after), where a real gain resets it, and that
// the replay agrees with iterate's own check_stall at every step.
#include <gtest/gtest.h>

#include "iterate/stall.hpp"
#include "report/history.hpp"

namespace ako::report {
namespace {

iterate::IterationRecord it(int n, const std::string& status, std::optional<double> gain, std::optional<double> us) {
  iterate::IterationRecord r;
  r.iter = n;
  r.title = "iteration " + std::to_string(n);
  r.status = status;
  r.gain_vs_best_pct = gain;
  r.runtime_us = us;
  r.hypothesis = "idea " + std::to_string(n);
  return r;
}

TEST(ReportHistory, StallRuleFiresAfterThreeFlatIterationsAndResetsOnAGain) {
  iterate::TrajectorySummary s;
  s.task = "demo";
  s.iterations = {it(0, "baseline", std::nullopt, 100), it(1, "improved", 10.0, 90), it(2, "no-change", 1.0, 89.1),
                  it(3, "regression", -4.0, 93.6), it(4, "failed", std::nullopt, std::nullopt),
                  it(5, "no-change", 0.5, 89.5), it(6, "improved", 5.0, 85.7), it(7, "no-change", 0.2, 85.5)};
  s.best = 6;
  const History h = build_history(s, {});
  ASSERT_EQ(h.points.size(), 8u);
  const std::vector<int> runs = {0, 0, 1, 2, 3, 4, 0, 1};
  const std::vector<bool> fired = {false, false, false, false, true, true, false, false};
  const std::vector<bool> reset = {false, false, false, false, false, false, true, false};
  for (size_t i = 0; i < h.points.size(); ++i) {
    EXPECT_EQ(h.points[i].stall_run, runs[i]) << "iter " << i;
    EXPECT_EQ(h.points[i].stall_fired, fired[i]) << "iter " << i;
    EXPECT_EQ(h.points[i].reset, reset[i]) << "iter " << i;
    const std::vector<iterate::IterationRecord> prefix(s.iterations.begin(), s.iterations.begin() + i + 1);
    EXPECT_EQ(h.points[i].stall_fired, iterate::check_stall(prefix).stalled) << "iter " << i;
  }
  EXPECT_FALSE(h.points[4].total_us) << "a failed iteration has no total";
  EXPECT_TRUE(h.hottest.empty()) << "no results: no per-case lines";
}

TEST(ReportHistory, AGainAfterTheBaselineIsNoReset) {
  iterate::TrajectorySummary s;
  s.iterations = {it(0, "baseline", std::nullopt, 100), it(1, "improved", 20.0, 80)};
  const History h = build_history(s, {});
  EXPECT_FALSE(h.points[1].reset) << "nothing was flat before it";
  EXPECT_EQ(h.points[1].stall_run, 0);
}

}  // namespace
}  // namespace ako::report
