// --update-baseline: what a fresh run replaces and what it keeps.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "gate/update.hpp"
#include "gate/case_key.hpp"
#include "gate_fixtures.hpp"

namespace ako::gate {
namespace {

using namespace testing;

BaselineStamp stamp() { return {"ako test", "2026-01-01T00:00:00Z", "sm_90a", "13.0", "13.0 build-id x"}; }

TEST(UpdateBaseline, FromAGpuRunRecordsDeviceCasesAndBudgets) {
  const Baseline b = updated_baseline(nullptr, {gpu_outcome(12.0)}, stamp());
  ASSERT_TRUE(b.has_timings());
  EXPECT_EQ(b.device->name, kH100);
  const auto& t = b.tasks.at("rmsnorm");
  EXPECT_EQ(t.cases.size(), 3u);
  EXPECT_EQ(t.cases.at("flux1-single bf16 weight").solution->median_us, 12.0);
  EXPECT_EQ(t.cases.at("flux1-single bf16 weight").solution->iqm_us, 12.0);  // the IQM is recorded
  EXPECT_FALSE(timed_before_iqm(b));
  EXPECT_FALSE(t.cases.at("check-7x3072 bf16 weight").solution);  // reference checks: verdict only
  EXPECT_EQ(t.cases.at("check-7x3072 bf16 weight").kind, "reference_check");
  EXPECT_EQ(t.kernels.at("solution").at(kSolutionKernel).budget.registers, 40);
  EXPECT_EQ(b.nvrtc_version, "13.0 build-id x");
}

// A task's baselines (FlashInfer's kernel, ...) are kept per case for the record, timed ones that
// were correct only; they round-trip through the file and an entry without any keeps its bytes.
TEST(UpdateBaseline, KeepsTheTimedBaselinesOfEachCase) {
  TaskOutcome o = gpu_outcome(12.0);
  CaseResult& c = o.result.cases.front();
  BaselineResult fi;
  fi.name = "flashinfer";
  fi.verdict = Verdict::correct;
  fi.time = timing(15.5);
  BaselineResult absent;
  absent.name = "other";
  absent.reason = "not installed";
  BaselineResult wrong = fi;
  wrong.name = "wrong";
  wrong.verdict = Verdict::incorrect;
  c.baselines = {fi, absent, wrong};
  const Baseline b = updated_baseline(nullptr, {o}, stamp());
  const auto& bc = b.tasks.at("rmsnorm").cases.at(case_key(c));
  ASSERT_EQ(bc.peers.size(), 1u);
  EXPECT_EQ(bc.peers.at("flashinfer").median_us, 15.5);
  const nlohmann::json j = to_json(b);
  EXPECT_EQ(to_json(baseline_from_json(nlohmann::json::parse(j.dump()))), j);
  EXPECT_EQ(j["tasks"]["rmsnorm"]["cases"][case_key(c)]["baselines"]["flashinfer"]["median_us"], 15.5);
  const Baseline plain = updated_baseline(nullptr, {gpu_outcome(12.0)}, stamp());
  EXPECT_FALSE(to_json(plain)["tasks"]["rmsnorm"]["cases"][case_key(c)].contains("baselines"));
}

// The entry records the IQM and its CI, with the median beside it.
TEST(UpdateBaseline, RecordsTheIqmAndItsCi) {
  TaskOutcome o = gpu_outcome(12.0);
  TimingStats& t = *o.result.cases.front().solution_time;
  t.median_us = 12.6;
  t.median_ci_rel = 0.02;
  t.ci_rel = 0.003;
  const Baseline b = updated_baseline(nullptr, {o}, stamp());
  const BaselineTiming& bt = *b.tasks.at("rmsnorm").cases.at(case_key(o.result.cases.front())).solution;
  EXPECT_EQ(bt.iqm_us, 12.0);
  EXPECT_EQ(bt.median_us, 12.6);
  EXPECT_EQ(bt.ci_rel, 0.003);
  EXPECT_EQ(bt.centre_us(), 12.0);
}

TEST(UpdateBaseline, WithoutAGpuRefreshesBudgetsAndKeepsTimings) {
  Baseline old = baseline_from(gpu_outcome());
  old.tasks["rmsnorm"].threshold_pct = 7.0;
  TaskOutcome o = cpu_outcome();
  o.result.builds[1] = build("solution", kSolutionKernel, 32, 0, 8);
  const Baseline b = updated_baseline(&old, {o}, stamp());
  EXPECT_EQ(b.tasks.at("rmsnorm").kernels.at("solution").at(kSolutionKernel).budget.registers, 32);
  ASSERT_TRUE(b.device);
  EXPECT_EQ(b.device->name, kH100);
  EXPECT_EQ(b.tasks.at("rmsnorm").cases.at("flux1-single bf16 weight").solution->median_us, 10.0);
  EXPECT_EQ(*b.tasks.at("rmsnorm").threshold_pct, 7.0);
}

TEST(UpdateBaseline, WithoutAGpuAndNoBaselineIsResourcesOnly) {
  const Baseline b = updated_baseline(nullptr, {cpu_outcome()}, stamp());
  EXPECT_FALSE(b.has_timings());
  EXPECT_TRUE(b.tasks.at("rmsnorm").cases.empty());
  EXPECT_EQ(b.tasks.at("rmsnorm").kernels.at("reference").size(), 1u);
}

TEST(UpdateBaseline, NeverMixesDevices) {
  Baseline old = baseline_from(gpu_outcome());
  old.tasks["layernorm"] = old.tasks["rmsnorm"];
  TaskOutcome o = gpu_outcome();
  o.result.device.name = "NVIDIA H200";
  EXPECT_THROW(updated_baseline(&old, {o}, stamp()), Error);  // layernorm would keep H100 timings
  TaskOutcome other = o;
  other.task = "layernorm";
  EXPECT_EQ(updated_baseline(&old, {o, other}, stamp()).device->name, "NVIDIA H200");
}

TEST(UpdateBaseline, WithoutAGpuRefusesToChangeTheArchOfTimedBudgets) {
  const Baseline old = baseline_from(gpu_outcome());
  BaselineStamp s = stamp();
  s.arch = "sm_100a";
  EXPECT_THROW(updated_baseline(&old, {cpu_outcome()}, s), Error);
}

}  // namespace
}  // namespace ako::gate
