// Status of an iteration against the best so far: beyond the measured noise or not, and the
// correctness states that come first.
#include <gtest/gtest.h>

#include "iterate/status.hpp"
#include "results_fixture.hpp"

namespace ako::iterate {
namespace {

using testing::compile_failed_run;
using testing::make_run;

TEST(Status, BaselineWhenThereIsNothingToCompareWith) {
  EXPECT_EQ(classify(make_run({10, 20}), nullptr), Status::baseline);
}

TEST(Status, FasterBeyondTheNoiseIsImproved) {
  const RunResult best = make_run({100, 200});
  EXPECT_EQ(classify(make_run({90, 180}), &best), Status::improved);
  const RunComparison c = compare_runs(make_run({90, 180}), best);
  EXPECT_EQ(c.common_cases, 2);
  EXPECT_NEAR(c.speedup(), 300.0 / 270.0, 1e-9);
  EXPECT_EQ(c.faster, 2);
}

TEST(Status, SlowerBeyondTheNoiseIsARegression) {
  const RunResult best = make_run({100, 200});
  EXPECT_EQ(classify(make_run({110, 215}), &best), Status::regression);
}

TEST(Status, AChangeInsideTheSpreadIsNoChange) {
  const RunResult best = make_run({100, 200}, 0.002);
  // 0.5% faster: inside the 1% run-to-run floor of each side.
  EXPECT_EQ(classify(make_run({99.5, 199}), &best), Status::no_change);
  // 4% faster but both runs measured with a 3% CI: still inside the spread.
  const RunResult noisy_best = make_run({100, 200}, 0.03);
  EXPECT_EQ(classify(make_run({96, 192}, 0.03), &noisy_best), Status::no_change);
  // The same 4% with tight CIs is real.
  EXPECT_EQ(classify(make_run({96, 192}), &best), Status::improved);
}

TEST(Status, OnlyCasesBothRunsTimedAreCompared) {
  const RunResult best = make_run({100, 200, 300});
  const RunResult now = make_run({90, 180});  // s2 not run this time
  const RunComparison c = compare_runs(now, best);
  EXPECT_EQ(c.common_cases, 2);
  EXPECT_DOUBLE_EQ(c.then_us, 300);
}

// A best iteration timed before the IQM (its result has medians only) is compared on medians:
// the new run's medians against it, not its IQMs.
TEST(Status, ARunTimedBeforeTheIqmIsComparedOnMedians) {
  RunResult best = make_run({100, 200});
  for (auto& c : best.cases)
    if (c.solution_time) c.solution_time->centre_is_median = true;  // as read from an old result.json
  RunResult now = make_run({90, 180});  // IQMs 10% faster ...
  for (auto& c : now.cases)
    if (c.solution_time) {
      c.solution_time->median_us = c.solution_time->iqm_us / 0.9;  // ... medians where they were
      c.solution_time->median_ci_rel = 0.002;
    }
  const RunComparison c = compare_runs(now, best);
  EXPECT_EQ(c.on_medians, 2);
  EXPECT_NEAR(c.now_us, 300, 1e-9);
  EXPECT_EQ(classify(now, &best), Status::no_change);
  // Between two IQM runs the IQMs decide.
  const RunResult iqm_best = make_run({100, 200});
  EXPECT_EQ(compare_runs(now, iqm_best).on_medians, 0);
  EXPECT_EQ(classify(now, &iqm_best), Status::improved);
}

TEST(Status, CorrectnessComesBeforeSpeed) {
  const RunResult best = make_run({100, 200});
  EXPECT_EQ(classify(make_run({50, 100}, 0.002, {Verdict::correct, Verdict::incorrect}), &best), Status::incorrect);
  EXPECT_EQ(classify(make_run({50, 100}, 0.002, {Verdict::incorrect, Verdict::failed}), &best), Status::failed);
  EXPECT_EQ(classify(compile_failed_run(2), &best), Status::failed);
  EXPECT_EQ(classify(compile_failed_run(2), nullptr), Status::failed);
  EXPECT_EQ(correctness_word(compile_failed_run(2)), "failed");
  EXPECT_EQ(correctness_word(make_run({1}, 0.002, {Verdict::incorrect})), "incorrect");
  EXPECT_EQ(correctness_word(make_run({1})), "correct");
}

TEST(Status, NamesRoundTrip) {
  for (Status s : {Status::baseline, Status::improved, Status::no_change, Status::regression, Status::incorrect,
                   Status::failed})
    EXPECT_EQ(parse_status(status_name(s)), s);
  EXPECT_EQ(std::string(status_name(Status::no_change)), "no-change");
  EXPECT_FALSE(parse_status("better"));
}

}  // namespace
}  // namespace ako::iterate
