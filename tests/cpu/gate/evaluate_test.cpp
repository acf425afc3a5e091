// The gate's decision on synthetic results: what fails, what only warns, and that every kind
// of check says whether it ran.
#include <gtest/gtest.h>

#include <algorithm>

#include "gate/evaluate.hpp"
#include "gate_fixtures.hpp"

namespace ako::gate {
namespace {

using namespace testing;

std::vector<Check> with(const GateReport& r, CheckKind k, CheckStatus s) {
  std::vector<Check> out;
  for (const auto& c : r.checks)
    if (c.kind == k && c.status == s) out.push_back(c);
  return out;
}

const Coverage& coverage(const GateReport& r, CheckKind k) {
  for (const auto& c : r.coverage)
    if (c.kind == k) return c;
  static Coverage none;
  ADD_FAILURE() << "no coverage line for " << kind_name(k);
  return none;
}

TEST(Gate, SameResultsPass) {
  const Baseline b = baseline_from(gpu_outcome());
  const GateReport r = evaluate_gate({gpu_outcome()}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(with(r, CheckKind::timing, CheckStatus::pass).size(), 2u);
  EXPECT_EQ(with(r, CheckKind::resources, CheckStatus::pass).size(), 2u);
  for (CheckKind k : {CheckKind::build, CheckKind::correctness, CheckKind::coverage, CheckKind::timing,
                      CheckKind::resources})
    EXPECT_TRUE(coverage(r, k).ran) << kind_name(k) << ": " << coverage(r, k).why;
}

TEST(Gate, RegressionIsCaught) {
  const Baseline b = baseline_from(gpu_outcome());
  const GateReport r = evaluate_gate({gpu_outcome(11.0)}, &b, options());  // 10% slower, noise 0.4%
  EXPECT_FALSE(r.passed());
  const auto fails = with(r, CheckKind::timing, CheckStatus::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].subject, "flux1-single bf16 weight");
  EXPECT_NEAR(fails[0].change_pct, 10.0, 1e-9);
}

TEST(Gate, ChangeInsideTheNoiseIsNotFlagged) {
  Baseline b = baseline_from(gpu_outcome());
  b.tasks["rmsnorm"].cases["flux1-single bf16 weight"].solution->ci_rel = 0.05;
  TaskOutcome o = gpu_outcome(10.5);  // 5% slower; baseline known to +-5%
  o.result.cases[0].solution_time->ci_rel = 0.05;
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(with(r, CheckKind::timing, CheckStatus::warn).size(), 1u);
}

TEST(Gate, ImprovementIsReported) {
  const Baseline b = baseline_from(gpu_outcome());
  const GateReport r = evaluate_gate({gpu_outcome(10.0, 15.0)}, &b, options());
  EXPECT_TRUE(r.passed());
  const auto better = with(r, CheckKind::timing, CheckStatus::improved);
  ASSERT_EQ(better.size(), 1u);
  EXPECT_EQ(better[0].subject, "flux1-single bf16 noweight");
  EXPECT_EQ(r.count(CheckStatus::improved), 1);
}

TEST(Gate, PerTaskThresholdWinsOverTheCommandLine) {
  Baseline b = baseline_from(gpu_outcome());
  GateOptions opt = options();
  opt.threshold_pct = 20.0;
  EXPECT_TRUE(evaluate_gate({gpu_outcome(11.0)}, &b, opt).passed());  // 10% < 20%
  b.tasks["rmsnorm"].threshold_pct = 5.0;
  EXPECT_FALSE(evaluate_gate({gpu_outcome(11.0)}, &b, opt).passed());  // 10% > 5%
}

TEST(Gate, CorrectnessFailureFailsAndIsNotTimed) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = gpu_outcome(5.0);  // faster, but wrong
  o.result.cases[0].verdict = Verdict::incorrect;
  o.result.cases[0].reason = "12 mismatches";
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_FALSE(r.passed());
  const auto wrong = with(r, CheckKind::correctness, CheckStatus::fail);
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_NE(wrong[0].detail.find("12 mismatches"), std::string::npos);
  // Correctness comes first in the report, and a wrong case's speed-up is not credited.
  EXPECT_EQ(r.checks.front().kind, CheckKind::correctness);
  EXPECT_EQ(with(r, CheckKind::timing, CheckStatus::improved).size(), 0u);
  EXPECT_EQ(with(r, CheckKind::timing, CheckStatus::skipped).size(), 1u);
}

TEST(Gate, CrashedAndUnrunCasesFail) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = gpu_outcome();
  o.result.cases[1].verdict = Verdict::failed;
  o.result.cases[1].fault = "illegal_address";
  o.result.cases[2].verdict = Verdict::skipped;
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_EQ(with(r, CheckKind::correctness, CheckStatus::fail).size(), 2u);
}

TEST(Gate, MissingShapeIsFlagged) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = gpu_outcome();
  o.result.cases.erase(o.result.cases.begin());  // the task lost flux1-single weight
  o.defined_cases.erase("flux1-single bf16 weight");
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_FALSE(r.passed());
  const auto missing = with(r, CheckKind::coverage, CheckStatus::fail);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].subject, "flux1-single bf16 weight");
}

TEST(Gate, CaseNotSelectedIsSkippedNotMissing) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = gpu_outcome();
  o.result.cases.erase(o.result.cases.begin());  // filtered by --shapes/--dtypes, still defined
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(with(r, CheckKind::coverage, CheckStatus::skipped).size(), 1u);
}

TEST(Gate, NewCaseIsFlaggedButPasses) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = gpu_outcome();
  o.result.cases.push_back(compare_case("wan14b-480p", true, 50, 60));
  o.defined_cases.insert("wan14b-480p bf16 weight");
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(with(r, CheckKind::coverage, CheckStatus::warn).size(), 1u);
}

TEST(Gate, MissingTaskIsFlagged) {
  Baseline b = baseline_from(gpu_outcome());
  b.tasks["layernorm"] = b.tasks["rmsnorm"];
  const GateReport r = evaluate_gate({gpu_outcome()}, &b, options());  // no tasks/layernorm
  EXPECT_FALSE(r.passed());
  const auto missing = with(r, CheckKind::coverage, CheckStatus::fail);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].task, "layernorm");

  GateOptions opt = options();
  opt.workspace_tasks.insert("layernorm");  // exists, just not selected by --tasks
  EXPECT_TRUE(evaluate_gate({gpu_outcome()}, &b, opt).passed());
}

TEST(Gate, TaskWithoutBaselineEntryIsCheckedForCorrectnessOnly) {
  Baseline b = baseline_from(gpu_outcome());
  b.tasks.clear();
  TaskOutcome o = gpu_outcome(50.0);
  GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_FALSE(coverage(r, CheckKind::timing).ran);
  EXPECT_NE(coverage(r, CheckKind::timing).why.find("no entry"), std::string::npos);
  o.result.cases[0].verdict = Verdict::incorrect;
  EXPECT_FALSE(evaluate_gate({o}, &b, options()).passed());
}

TEST(Gate, OtherDeviceSkipsTimingsButChecksCorrectness) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = gpu_outcome(30.0, 60.0);  // much slower: an A100
  o.result.device.name = "NVIDIA A100-SXM4-80GB";
  o.result.device.arch = "sm_80";
  for (auto& k : o.result.builds) k.arch = "sm_80";
  GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_FALSE(coverage(r, CheckKind::timing).ran);
  EXPECT_NE(coverage(r, CheckKind::timing).why.find("different device"), std::string::npos);
  EXPECT_TRUE(coverage(r, CheckKind::correctness).ran);
  EXPECT_FALSE(coverage(r, CheckKind::resources).ran);  // budgets are for sm_90a
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("NOT compared"), std::string::npos) << r.notes[0];
  o.result.cases[1].verdict = Verdict::incorrect;
  EXPECT_FALSE(evaluate_gate({o}, &b, options()).passed());
}

TEST(Gate, ResourceRegressionIsCaughtWithoutAGpu) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = cpu_outcome();
  EXPECT_TRUE(evaluate_gate({o}, &b, options()).passed());
  o.result.builds[1] = build("solution", kSolutionKernel, 40, 24, 8);  // starts spilling
  GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_FALSE(r.passed());
  auto fails = with(r, CheckKind::resources, CheckStatus::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NE(fails[0].detail.find("starts spilling"), std::string::npos) << fails[0].detail;

  o = cpu_outcome();
  o.result.builds[1] = build("solution", kSolutionKernel, 64, 0, 8);  // registers up
  r = evaluate_gate({o}, &b, options());
  fails = with(r, CheckKind::resources, CheckStatus::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NE(fails[0].detail.find("registers 64 > budget 40"), std::string::npos) << fails[0].detail;
}

TEST(Gate, WithoutAGpuEveryGpuCheckSaysSkippedAndWhy) {
  const Baseline b = baseline_from(gpu_outcome());
  const GateReport r = evaluate_gate({cpu_outcome()}, &b, options());
  EXPECT_TRUE(r.passed());
  for (CheckKind k : {CheckKind::correctness, CheckKind::timing}) {
    EXPECT_FALSE(coverage(r, k).ran) << kind_name(k);
    EXPECT_NE(coverage(r, k).why.find("no GPU"), std::string::npos) << coverage(r, k).why;
  }
  EXPECT_TRUE(coverage(r, CheckKind::resources).ran);
  EXPECT_NE(r.mode.find("correctness and timing skipped"), std::string::npos) << r.mode;
}

TEST(Gate, ResourcesOnlyBaselineSaysTimingsWereNotCompared) {
  Baseline b = baseline_from(gpu_outcome());
  b.device.reset();
  for (auto& [k, c] : b.tasks["rmsnorm"].cases) c.solution = c.reference = std::nullopt;
  const GateReport r = evaluate_gate({gpu_outcome(100.0)}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_FALSE(coverage(r, CheckKind::timing).ran);
  EXPECT_NE(coverage(r, CheckKind::timing).why.find("resource budgets only"), std::string::npos);
}

TEST(Gate, NewKernelWithoutBudgetWarnsAndGoneKernelIsSkipped) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = cpu_outcome();
  o.result.builds[1] = build("solution", "rmsnorm_kernel<__nv_bfloat16, true, 512, 8, 1, 2>", 40);
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(with(r, CheckKind::resources, CheckStatus::warn).size(), 1u);
  EXPECT_EQ(with(r, CheckKind::resources, CheckStatus::skipped).size(), 1u);
}

TEST(Gate, BuildErrorFailsAndSkipsEverythingElse) {
  const Baseline b = baseline_from(gpu_outcome());
  TaskOutcome o = cpu_outcome();
  o.build_errors = {"solution/rmsnorm/rmsnorm.cuh(4): error: expected a ;"};
  const GateReport r = evaluate_gate({o}, &b, options());
  EXPECT_FALSE(r.passed());
  EXPECT_TRUE(r.build_failed());
  EXPECT_FALSE(coverage(r, CheckKind::resources).ran);
}

TEST(Gate, NoBaselineChecksCorrectnessOnly) {
  const GateReport r = evaluate_gate({gpu_outcome()}, nullptr, options());
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(coverage(r, CheckKind::correctness).ran);
  EXPECT_FALSE(coverage(r, CheckKind::timing).ran);
}

// An H200 run against a file whose only entry is the H100's: the CLI passes no entry and says
// why; correctness is gated, timings and budgets are not compared, and the gate passes.
TaskOutcome h200_outcome() {
  TaskOutcome o = gpu_outcome();
  o.result.device.name = "NVIDIA H200";
  return o;
}

GateOptions no_h200_entry() {
  GateOptions o = options();
  o.entry = "NVIDIA H200";
  o.no_entry_reason =
      "no baseline entry for NVIDIA H200 (entries: NVIDIA H100 80GB HBM3); timings not compared; correctness gated";
  return o;
}

TEST(Gate, ADeviceWithNoEntryIsSaidAndOnlyCorrectnessIsGated) {
  const GateReport r = evaluate_gate({h200_outcome()}, nullptr, no_h200_entry());
  EXPECT_TRUE(r.passed());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.front(), no_h200_entry().no_entry_reason);
  EXPECT_TRUE(coverage(r, CheckKind::correctness).ran) << coverage(r, CheckKind::correctness).why;
  EXPECT_EQ(coverage(r, CheckKind::correctness).why, "3 of 3 cases correct on NVIDIA H200");
  for (CheckKind k : {CheckKind::coverage, CheckKind::timing, CheckKind::resources}) {
    EXPECT_FALSE(coverage(r, k).ran) << kind_name(k);
    EXPECT_EQ(coverage(r, k).why, no_h200_entry().no_entry_reason) << kind_name(k);
  }
  for (const auto& c : r.coverage) EXPECT_EQ(c.entry, "NVIDIA H200");
  EXPECT_TRUE(with(r, CheckKind::timing, CheckStatus::pass).empty());
}

TEST(Gate, ADeviceWithNoEntryStillFailsOnAWrongResult) {
  TaskOutcome o = h200_outcome();
  o.result.cases[0].verdict = Verdict::incorrect;
  o.result.cases[0].reason = "max abs error 0.5";
  const GateReport r = evaluate_gate({o}, nullptr, no_h200_entry());
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(with(r, CheckKind::correctness, CheckStatus::fail).size(), 1u);
}

// An entry written before the IQM: compared on medians (the run's median against the entry's),
// said once in the notes, while an entry with IQMs says nothing.
TEST(Gate, AnEntryTimedBeforeTheIqmIsSaidOnceAndComparedOnMedians) {
  Baseline b = baseline_from(gpu_outcome());
  for (auto& [label, c] : b.tasks["rmsnorm"].cases)
    if (c.solution) c.solution->iqm_us = 0;  // as read from a file without iqm_us
  TaskOutcome o = gpu_outcome();
  // Two modes: the IQMs stay, the first case's median moved 10% (beyond its 0.2% CI).
  o.result.cases[0].solution_time->median_us = 11.0;
  o.result.cases[0].solution_time->median_ci_rel = 0.002;
  const GateReport r = evaluate_gate({o}, &b, options());
  const auto notes = std::count_if(r.notes.begin(), r.notes.end(),
                                   [](const std::string& n) { return n.find("timed before the IQM") != std::string::npos; });
  EXPECT_EQ(notes, 1);
  const auto it = std::find_if(r.notes.begin(), r.notes.end(),
                               [](const std::string& n) { return n.find("timed before the IQM") != std::string::npos; });
  ASSERT_NE(it, r.notes.end());
  EXPECT_EQ(it->rfind("entry NVIDIA H100 80GB HBM3: timed before the IQM, its medians compared", 0), 0u) << *it;
  const auto fails = with(r, CheckKind::timing, CheckStatus::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NEAR(fails[0].new_us, 11.0, 1e-12);

  const Baseline fresh = baseline_from(gpu_outcome());
  const GateReport r2 = evaluate_gate({o}, &fresh, options());  // IQMs: unchanged, passes
  EXPECT_TRUE(r2.passed());
  for (const auto& n : r2.notes) EXPECT_EQ(n.find("IQM"), std::string::npos) << n;
}

// The H200's own entry (timings measured on it) is compared as the H100's is on the H100.
TEST(Gate, TheDevicesOwnEntryComparesTimings) {
  const Baseline b = baseline_from(h200_outcome());
  GateOptions opt = options();
  opt.entry = "NVIDIA H200";
  const GateReport fine = evaluate_gate({h200_outcome()}, &b, opt);
  EXPECT_TRUE(fine.passed());
  EXPECT_EQ(with(fine, CheckKind::timing, CheckStatus::pass).size(), 2u);
  EXPECT_TRUE(fine.notes.empty()) << fine.notes.front();
  const GateReport slow = evaluate_gate({[] {
                                          TaskOutcome o = gpu_outcome(11.0);
                                          o.result.device.name = "NVIDIA H200";
                                          return o;
                                        }()},
                                        &b, opt);
  EXPECT_EQ(with(slow, CheckKind::timing, CheckStatus::fail).size(), 1u);
}

}  // namespace
}  // namespace ako::gate
