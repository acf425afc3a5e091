// JSON round trips of the run result (harness/result/run_result_json.cpp) and its summary.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "result/run_result.hpp"

namespace ako {
namespace {

RunResult sample_result() {
  RunResult r;
  r.ako_version = "0.1.0";
  r.task = "rmsnorm";
  r.started_at = "2026-11-22T20:00:00Z";
  r.wall_s = 3.5;
  r.options = {{"hot", false}, {"seed", 42}};
  r.device.name = "NVIDIA H100 80GB HBM3";
  r.device.arch = "sm_90a";
  r.device.copy_bandwidth_gbs = 2950.5;
  KernelBuild b;
  b.role = "solution";
  b.file = "solution/rmsnorm/rmsnorm.cuh";
  b.name_expression = "rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 1>";
  b.lowered_name = "_Z14rmsnorm_kernel";
  b.resources.registers = 32;
  b.resources.spill_stores = 0;
  r.builds.push_back(b);
  CaseResult c;
  c.index = 3;
  c.shape = "flux1-single";
  c.dims = {{"rows", 4608}, {"cols", 3072}};
  c.dtype = "bf16";
  c.flags = {{"weight", true}};
  c.params = {{"BLOCK", 256}};
  c.verdict = Verdict::correct;
  c.error.max_abs = 0.0078125;
  c.error.checked = 4608 * 3072;
  TimingStats t;
  t.method = "cupti";
  t.samples = 40;
  // The IQM is the centre; the medians differ so that a test reading the wrong one fails.
  t.iqm_us = 20.5;
  t.median_us = 21.0;
  c.reference_time = t;
  t.iqm_us = 10.25;
  t.median_us = 10.5;
  c.solution_time = t;
  t.iqm_us = 9.5;   // --size-copy: the copy of the case's bytes
  c.size_copy_time = t;
  c.size_copy_bytes = 4608.0 * 3072 * 4;
  c.pct_size_copy = 92.68;
  c.speedup = 2.0;
  PrecisionReport p;
  p.buffer = "out";
  p.trial = 2;
  p.solution_rms = 2.1e-3;
  p.reference_rms = 2.0e-3;
  p.rms_factor = 1.25;
  p.rms_ratio = 1.05;
  p.trials_checked = 3;
  p.check_s = 0.004;
  c.precision = p;
  r.cases.push_back(c);
  CaseResult f;
  f.index = 4;
  f.verdict = Verdict::failed;
  f.fault = "illegal_address";
  r.cases.push_back(f);
  r.summary.compiled = true;
  summarize(r);
  return r;
}

TEST(RunResultJson, RoundTripKeepsEveryField) {
  const RunResult r = sample_result();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["schema"], "ako.run/1");
  const RunResult back = run_result_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[0].verdict, Verdict::correct);
  ASSERT_TRUE(back.cases[0].solution_time.has_value());
  EXPECT_DOUBLE_EQ(back.cases[0].solution_time->iqm_us, 10.25);
  EXPECT_DOUBLE_EQ(back.cases[0].solution_time->median_us, 10.5);
  EXPECT_FALSE(back.cases[0].solution_time->centre_is_median);
  EXPECT_EQ(timing_centre_name(back), "IQM");
  EXPECT_FALSE(back.cases[1].solution_time.has_value());
  ASSERT_TRUE(back.cases[0].size_copy_time.has_value());
  EXPECT_DOUBLE_EQ(back.cases[0].size_copy_time->iqm_us, 9.5);
  EXPECT_DOUBLE_EQ(back.cases[0].pct_size_copy, 92.68);
  EXPECT_DOUBLE_EQ(back.cases[0].size_copy_bytes, 4608.0 * 3072 * 4);
  EXPECT_FALSE(back.cases[1].size_copy_time.has_value());
  EXPECT_EQ(back.cases[1].fault, "illegal_address");
  EXPECT_EQ(back.builds[0].resources.registers, 32);
  ASSERT_TRUE(back.cases[0].precision.has_value());
  EXPECT_EQ(back.cases[0].precision->buffer, "out");
  EXPECT_EQ(back.cases[0].precision->trials_checked, 3);
  EXPECT_DOUBLE_EQ(back.cases[0].precision->rms_ratio, 1.05);
  EXPECT_FALSE(back.cases[1].precision.has_value());
}

// A result written before the IQM (no iqm_us, ci_rel the median's) reads with its median as the
// centre, so its speedups and sums are what they were, and is written back as it was.
TEST(RunResultJson, AResultWithoutIqmReadsWithItsMedianAsTheCentre) {
  nlohmann::json j = to_json(sample_result());
  for (const char* role : {"solution_time", "reference_time"}) {
    auto& t = j["cases"][0][role];
    t.erase("iqm_us");
    t.erase("median_ci_rel");
    t["ci_rel"] = 0.004;
  }
  const RunResult old = run_result_from_json(j);
  const TimingStats& s = *old.cases[0].solution_time;
  EXPECT_TRUE(s.centre_is_median);
  EXPECT_DOUBLE_EQ(s.iqm_us, 10.5);
  EXPECT_DOUBLE_EQ(s.median_ci_rel, 0.004);
  EXPECT_EQ(timing_centre_name(old), "median");
  RunResult again = old;
  summarize(again);
  EXPECT_DOUBLE_EQ(again.summary.runtime_us, 10.5);
  EXPECT_DOUBLE_EQ(again.summary.speedup, 2.0);
  const nlohmann::json back = to_json(old)["cases"][0]["solution_time"];
  EXPECT_FALSE(back.contains("iqm_us"));
  EXPECT_EQ(back["ci_rel"], 0.004);
  EXPECT_EQ(back["median_us"], 10.5);
}

TEST(RunResultJson, WrongSchemaIsRefusedWithTheFix) {
  nlohmann::json j = to_json(sample_result());
  j["schema"] = "ako.run/0";
  try {
    run_result_from_json(j);
    FAIL() << "accepted a wrong schema";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ako.run/0"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("re-run"), std::string::npos);
  }
}

TEST(RunResultJson, NonFiniteErrorValuesBecomeNull) {
  CaseResult c;
  c.error.worst_got = std::numeric_limits<double>::quiet_NaN();
  c.error.max_abs = std::numeric_limits<double>::infinity();
  nlohmann::json j = c;
  EXPECT_TRUE(j["error"]["worst_got"].is_null());
  EXPECT_TRUE(j["error"]["max_abs"].is_null());
  EXPECT_NO_THROW(nlohmann::json::parse(j.dump()));
}

TEST(RunResultJson, AnInfinitePrecisionRatioBecomesNullAndReadsBack) {
  CaseResult c;
  c.precision = PrecisionReport{};
  c.precision->rms_ratio = std::numeric_limits<double>::infinity();   // over a zero yardstick
  c.precision->max_ratio = 2.5;
  const nlohmann::json j = c;
  EXPECT_TRUE(j["precision"]["rms_ratio"].is_null());
  const CaseResult back = nlohmann::json::parse(j.dump()).get<CaseResult>();
  ASSERT_TRUE(back.precision.has_value());
  EXPECT_DOUBLE_EQ(back.precision->max_ratio, 2.5);
}

TEST(Summary, SumsOnlyCorrectTimedCompareCases) {
  RunResult r = sample_result();
  EXPECT_EQ(r.summary.cases, 2);
  EXPECT_EQ(r.summary.correct, 1);
  EXPECT_EQ(r.summary.failed, 1);
  EXPECT_DOUBLE_EQ(r.summary.runtime_us, 10.25);
  EXPECT_DOUBLE_EQ(r.summary.ref_runtime_us, 20.5);
  EXPECT_DOUBLE_EQ(r.summary.speedup, 2.0);
  EXPECT_NEAR(r.summary.geomean_speedup, 2.0, 1e-12);
  EXPECT_TRUE(r.summary.compiled);
}

TEST(Summary, FailedReferenceCheckCountsAgainstTheRun) {
  RunResult r;
  CaseResult c;
  c.kind = "reference_check";
  c.verdict = Verdict::incorrect;
  r.cases.push_back(c);
  summarize(r);
  EXPECT_EQ(r.summary.cases, 0);
  EXPECT_EQ(r.summary.incorrect, 1);
}

}  // namespace
}  // namespace ako
