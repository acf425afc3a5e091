// `ako tune` with compile bombs in its space: the bomb fixture (fixtures/bomb_tune) is a copy
// whose variants with BOMB = 1 never finish compiling. Under a compile time limit of 2 s they
// are killed, recorded as failed with reason "compile_timeout: solution/bomb/bomb.cuh: ...",
// never reach the GPU and never win; the other variants compile, run and win: the tune goes on.
// NVRTC runs for real; the worker is a fake that records what it was given.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"
#include "cpu/search/search_fixture.hpp"
#include "pipeline/tune_evaluator.hpp"
#include "search/tuner.hpp"

namespace ako::search {
namespace {

using namespace testing;
using ako::testsupport::has;

const fs::path kFixture = fs::path(AKO_TEST_DIR) / "cpu/pipeline/fixtures/bomb_tune";

struct FakeWorker {
  std::vector<std::string> functions;
  exec::WorkerRun operator()(const exec::WorkerJob& job, const exec::ClientOptions&, const exec::ClientCallbacks&) {
    exec::WorkerRun run;
    for (const auto& c : job.cases) {
      functions.push_back(c.solution ? c.solution->function : "");
      CaseResult r;
      r.index = c.index;
      r.verdict = Verdict::correct;
      r.solution_time = TimingStats{};
      r.solution_time->iqm_us = r.solution_time->median_us = has(functions.back(), "Li256E") ? 5.0 : 10.0;
      r.reference_time = TimingStats{};
      r.reference_time->iqm_us = r.reference_time->median_us = 12.0;
      run.results.push_back(r);
    }
    return run;
  }
};

TEST(TuneBomb, BombVariantsAreKilledAndRecordedAndTheTuneGoesOn) {
  ScratchDir dir("bomb");
  const task::TaskSpec spec = task::load_task(kFixture, "bomb");
  auto fake = std::make_shared<FakeWorker>();
  pipeline::GpuEvaluatorOptions go;
  go.build.arch = "sm_90a";
  go.build.compile.cache_dir = dir.path() / "cache";
  go.build.compile.jobs = 2;
  go.build.compile.timeout_s = 2;
  go.build.root = spec.root;
  go.run_worker = [fake](const auto& job, const auto& copt, const auto& cb) { return (*fake)(job, copt, cb); };
  // The reference and support kernels first, without the short limit (a loaded machine may
  // take longer than 2 s over them); then the tune, where only the variants are compiled.
  {
    pipeline::GpuEvaluatorOptions warm = go;
    warm.build.compile.timeout_s = 0;
    auto cases = task::expand_cases(spec, {}, {{"BLOCK", 128}, {"BOMB", 0}}, false);
    for (auto& c : cases) c.solution.reset();
    ASSERT_TRUE(pipeline::build_kernels(cases, warm.build).errors.empty());
  }
  pipeline::GpuEvaluator eval(spec, go);
  DbContext ctx = synthetic_context();
  ctx.task = "bomb";
  ctx.dtypes = {"fp32"};
  ctx.allow = std::vector<std::string>{};
  TuningDb db(dir.path() / "db.jsonl", ctx);
  TuneOptions to;
  to.strategy.name = "exhaustive";
  const TuneOutcome o = tune(spec, all_shapes(spec), ClassMode::shape, to, eval, db);

  EXPECT_EQ(eval.compile_errors.load(), 2u);
  EXPECT_EQ(eval.compiled.load(), 2u);
  for (const auto& f : fake->functions) EXPECT_TRUE(has(f, "Li0EE")) << f << ": a bomb variant reached the GPU";
  EXPECT_EQ(fake->functions.size(), 2u);
  ASSERT_EQ(o.classes.size(), 1u);
  ASSERT_TRUE(o.classes[0].winner);
  EXPECT_EQ(o.classes[0].winner->at("BOMB"), 0);
  EXPECT_EQ(o.classes[0].winner->at("BLOCK"), 256);

  const TuningDb back(dir.path() / "db.jsonl", ctx);
  ASSERT_EQ(back.size(), 4u);
  for (const DbRecord* r : back.records_for_shape("small")) {
    if (r->params.at("BOMB") == 0) {
      EXPECT_EQ(r->verdict, "correct") << r->reason;
      continue;
    }
    EXPECT_EQ(r->verdict, "failed");
    EXPECT_EQ(r->reason.rfind("compile_timeout: solution/bomb/bomb.cuh: NVRTC was still compiling after 2 s", 0), 0u)
        << r->reason;
    EXPECT_TRUE(r->cases.empty()) << "a bomb has no case results: it never ran";
  }
}

}  // namespace
}  // namespace ako::search
