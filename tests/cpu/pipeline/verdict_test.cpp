// The verdict rules after the worker (pipeline/verdict.hpp), on one path for every command: a
// correct cold-L2 case timed faster than the device's copy bandwidth allows for the bytes it
// must move is refused (refuse_implausible), and `ako tune` (GpuEvaluator, with a fake worker;
// NVRTC runs for real) refuses it exactly as `ako run` (execute_run) does.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <filesystem>
#include <functional>
#include <string>

#include "cpu/search/search_fixture.hpp"
#include "pipeline/run_plan.hpp"
#include "pipeline/tune_evaluator.hpp"
#include "pipeline/verdict.hpp"
#include "exec/client/sanitizer.hpp"
#include "exec/protocol/reference_blame.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"

namespace ako::pipeline {
namespace {

namespace fs = std::filesystem;
using ako::testsupport::has;

// --- the bandwidth rule ----------------------------------------------------------------------

CaseResult timed_case(double bytes, double median_us, bool cold = true) {
  CaseResult c;
  c.verdict = Verdict::correct;
  c.bytes = bytes;
  TimingStats s;
  s.iqm_us = s.median_us = median_us;
  s.cold_l2 = cold;
  c.solution_time = s;
  TimingStats ref = s;
  ref.iqm_us = ref.median_us = 2 * median_us;
  c.reference_time = ref;
  return c;
}

TEST(Implausible, FasterThanCopyBandwidthIsRefused) {
  // 56.6 MB in 15 us is 3775 GB/s: 126% of a 3000 GB/s device.
  CaseResult c = timed_case(56.6e6, 15.0);
  derive_rates(c, 3000);
  ASSERT_GT(c.speedup, 0);
  EXPECT_TRUE(refuse_implausible(c, 3000));
  EXPECT_EQ(c.verdict, Verdict::failed);
  EXPECT_EQ(c.fault, "implausible");
  EXPECT_EQ(c.reason.rfind("implausible: 3773 GB/s for the 56.60 MB", 0), 0u) << c.reason;
  EXPECT_TRUE(has(c.reason, "126% of the measured copy bandwidth 3000 GB/s (limit 110%")) << c.reason;
  EXPECT_EQ(c.speedup, 0);
}

TEST(DeriveRates, TheSolutionAgainstItsSizeCopy) {
  // --size-copy: the copy's IQM over the solution's, in percent; none without a timed copy.
  CaseResult c = timed_case(56.6e6, 20.0);
  derive_rates(c, 3000);
  EXPECT_EQ(c.pct_size_copy, 0);
  TimingStats copy = *c.solution_time;
  copy.iqm_us = 18.0;
  c.size_copy_time = copy;
  derive_rates(c, 3000);   // no copy bytes recorded: the case's own
  EXPECT_DOUBLE_EQ(c.pct_size_copy, 90.0);
  // A copy of rounded bytes compares by rate: 5% more bytes in the same time is a 5% faster copy.
  c.size_copy_bytes = 1.05 * 56.6e6;
  derive_rates(c, 3000);
  EXPECT_NEAR(c.pct_size_copy, 90.0 / 1.05, 1e-9);
}

TEST(Implausible, HonestFastKernelsPass) {
  // bench/RESULTS.md: the best honest kernels measured 100.9% of copy bandwidth on the H100.
  CaseResult c = timed_case(3027e9 * 1.009 * 20e-6, 20.0);
  EXPECT_FALSE(refuse_implausible(c, 3027));
  EXPECT_EQ(c.verdict, Verdict::correct);
  // Just under the limit still passes; just over it does not.
  CaseResult edge = timed_case(3000e9 * 1.099 * 10e-6, 10.0);
  EXPECT_FALSE(refuse_implausible(edge, 3000));
  CaseResult over = timed_case(3000e9 * 1.11 * 10e-6, 10.0);
  EXPECT_TRUE(refuse_implausible(over, 3000));
}

TEST(Implausible, OnlyCorrectColdTimedCasesWithABandwidth) {
  CaseResult hot = timed_case(56.6e6, 5.0, /*cold=*/false);  // data may come from L2
  EXPECT_FALSE(refuse_implausible(hot, 3000));
  CaseResult wrong = timed_case(56.6e6, 5.0);
  wrong.verdict = Verdict::incorrect;
  EXPECT_FALSE(refuse_implausible(wrong, 3000));
  EXPECT_EQ(wrong.verdict, Verdict::incorrect);
  CaseResult unknown_bw = timed_case(56.6e6, 5.0);
  EXPECT_FALSE(refuse_implausible(unknown_bw, 0));
  CaseResult untimed;
  untimed.verdict = Verdict::correct;
  untimed.bytes = 1e6;
  EXPECT_FALSE(refuse_implausible(untimed, 3000));
}

// --- one path: tune refuses what run refuses ------------------------------------------------

const fs::path kFixture = fs::path(AKO_TEST_DIR) / "cpu/pipeline/fixtures/static_tune";
constexpr double kCopyGbs = 3000;

// What a worker on a 3000 GB/s device reports for a case: correct, cold L2, in median_us.
CaseResult worker_report(int index, double bytes, double median_us) {
  CaseResult r;
  r.index = index;
  r.bytes = bytes;
  r.verdict = Verdict::correct;
  r.solution_time = TimingStats{};
  r.solution_time->iqm_us = r.solution_time->median_us = median_us;
  r.reference_time = TimingStats{};
  r.reference_time->iqm_us = r.reference_time->median_us = 2 * median_us;
  return r;
}

exec::WorkerRun fake_worker(const exec::WorkerJob& job, double median_us) {
  exec::WorkerRun run;
  run.device = DeviceInfo{};
  run.device->name = "fake";
  run.device->copy_bandwidth_gbs = kCopyGbs;
  for (const auto& c : job.cases) run.results.push_back(worker_report(c.index, c.bytes, median_us));
  return run;
}

struct BothPaths {
  search::DbRecord tune;  // GpuEvaluator's record of the variant on the shape
  CaseResult run;         // execute_run's case: the skeleton settled with the same report
  std::string label;
};

using Report = std::function<CaseResult(int index, double bytes)>;

// The spilly fixture's N=4, TIMER=0 variant (no static finding) on its "large" shape: one fp32
// case of 8.4 MB, reported by the worker as `report` says.
BothPaths settle_both_ways(const Report& report) {
  search::testing::ScratchDir dir("verdict");
  const task::TaskSpec spec = task::load_task(kFixture, "spilly");
  GpuEvaluatorOptions go;
  go.build.arch = "sm_90a";
  go.build.compile.cache_dir = dir.path() / "cache";
  go.build.compile.jobs = 2;
  go.build.root = spec.root;
  go.run_worker = [&report](const auto& job, const auto&, const auto&) {
    exec::WorkerRun run = fake_worker(job, 1.0);
    for (auto& r : run.results) r = report(r.index, r.bytes);
    return run;
  };
  GpuEvaluator eval(spec, go);
  const task::ShapeSpec* large = nullptr;
  for (const auto& s : spec.shapes)
    if (s.name == "large") large = &s;
  const search::EvalRequest req{{{"N", 4}, {"TIMER", 0}}, {large}};
  const auto records = eval.evaluate({req});
  EXPECT_EQ(records.size(), 1u);

  task::CaseFilter only_large;
  only_large.shapes = {"large"};
  const auto cases = task::expand_cases(spec, only_large, req.params, false);
  EXPECT_EQ(cases.size(), 1u);
  BothPaths out{records.at(0), case_result_skeleton(cases.at(0), 0), cases.at(0).label()};
  settle_case(out.run, report(0, cases.at(0).bytes), kCopyGbs);
  return out;
}

// ... timed by the worker in median_us.
BothPaths settle_both_ways(double median_us) {
  return settle_both_ways([median_us](int index, double bytes) { return worker_report(index, bytes, median_us); });
}

TEST(OneVerdictPath, TuneRefusesAnImplausibleTimeAsRunDoes) {
  // 8.39 MB in 1 us is 8389 GB/s: 280% of the device's 3000 GB/s.
  const BothPaths b = settle_both_ways(1.0);
  EXPECT_EQ(b.run.verdict, Verdict::failed);
  EXPECT_EQ(b.run.fault, "implausible");
  EXPECT_EQ(b.run.reason.rfind("implausible: 8389 GB/s for the 8.39 MB", 0), 0u) << b.run.reason;

  EXPECT_EQ(b.tune.verdict, "failed") << b.tune.reason;
  EXPECT_EQ(b.tune.reason, b.label + ": " + b.run.reason);
  ASSERT_EQ(b.tune.cases.size(), 1u);
  EXPECT_EQ(b.tune.cases[0].verdict, "failed");
  EXPECT_FALSE(b.tune.correct()) << "an implausible variant never wins";
}

TEST(OneVerdictPath, AnHonestTimePassesBoth) {
  // 8.39 MB in 5 us is 1678 GB/s: 56% of the copy bandwidth.
  const BothPaths b = settle_both_ways(5.0);
  EXPECT_EQ(b.run.verdict, Verdict::correct) << b.run.reason;
  EXPECT_EQ(b.tune.verdict, "correct") << b.tune.reason;
  EXPECT_TRUE(b.tune.correct());
  EXPECT_DOUBLE_EQ(b.tune.time_us, 5.0);
}

}  // namespace
}  // namespace ako::pipeline

namespace ako::pipeline {
namespace {

// Blame (exec/protocol/reference_blame.hpp): what the worker reports when the reference, not the
// solution, faulted in validation reaches both paths as it was made: skipped, naming the reference.
TEST(OneVerdictPath, ACaseTheReferenceFaultedOnIsSkippedNamingTheReferenceInBoth) {
  const std::string what = "illegal address (out-of-bounds or wild pointer access), in validation trial 1/3, reference: "
                           "cuStreamSynchronize(reference): CUDA_ERROR_ILLEGAL_ADDRESS";
  const BothPaths b = settle_both_ways([&](int index, double bytes) {
    CaseResult r;
    r.index = index;
    r.bytes = bytes;
    exec::blame_reference(r, "illegal_address", what);
    return r;
  });
  EXPECT_EQ(b.run.verdict, Verdict::skipped);
  EXPECT_EQ(b.run.fault, "reference_illegal_address");
  EXPECT_EQ(b.run.reason, "reference at fault: " + what + "; the solution was not judged on this case");
  EXPECT_TRUE(exec::blamed_on_reference(b.run));
  EXPECT_FALSE(exec::worth_sanitizing(b.run)) << "the solution did nothing to re-run under the sanitizer";
  EXPECT_EQ(b.run.speedup, 0);

  EXPECT_EQ(b.tune.verdict, "skipped");
  EXPECT_EQ(b.tune.reason, b.label + ": " + b.run.reason);
  EXPECT_FALSE(b.tune.correct()) << "a variant not judged never wins";
}

}  // namespace
}  // namespace ako::pipeline
