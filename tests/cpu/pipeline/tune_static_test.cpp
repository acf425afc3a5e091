// `ako tune` puts every compiled variant through the static checks `ako run` applies. The
// spilly fixture task (fixtures/static_tune) has a space where N = 128 needs a 512 byte stack
// frame (local_memory, over the 256 byte budget) and TIMER = 1 reads %globaltimer (clock):
// those points are refused after compiling, recorded as failed with a "static check:" reason,
// never handed to the worker, never winners, and counted; a task's solution.allow lets them
// through. NVRTC runs for real; the worker is a fake that records what it was given.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <fstream>
#include <set>

#include "pipeline/tune_evaluator.hpp"
#include "search/tuner.hpp"
#include "cpu/search/search_fixture.hpp"

namespace ako::search {
namespace {

using namespace testing;
using ako::testsupport::has;

const fs::path kFixture = fs::path(AKO_TEST_DIR) / "cpu/pipeline/fixtures/static_tune";

// A worker that "runs" every case correctly and remembers the solution kernels it was given.
// Variants with N = 128 would be the fastest by far, so one slipping through would win.
struct FakeWorker {
  std::vector<std::string> functions;
  std::set<std::string> cases;  // function and case label: a drift probe repeats an earlier one
  exec::WorkerRun operator()(const exec::WorkerJob& job, const exec::ClientOptions&, const exec::ClientCallbacks&) {
    exec::WorkerRun run;
    for (const auto& c : job.cases) {
      functions.push_back(c.solution ? c.solution->function : "");
      cases.insert(functions.back() + " " + c.label);
      CaseResult r;
      r.index = c.index;
      r.verdict = Verdict::correct;
      r.solution_time = TimingStats{};
      r.solution_time->iqm_us = r.solution_time->median_us = has(functions.back(), "Li128E") ? 1.0 : 10.0;
      r.reference_time = TimingStats{};
      r.reference_time->iqm_us = r.reference_time->median_us = 12.0;
      run.results.push_back(r);
    }
    return run;
  }
};

struct Tuned {
  TuneOutcome outcome;
  size_t refused_static = 0;
  std::vector<std::string> functions;  // what reached the (fake) GPU
  std::set<std::string> cases;         // the (function, case) pairs among them
};

Tuned tune_spilly(const task::TaskSpec& spec, const fs::path& dir, TuningDb& db) {
  auto fake = std::make_shared<FakeWorker>();
  pipeline::GpuEvaluatorOptions go;
  go.build.arch = "sm_90a";
  go.build.compile.cache_dir = dir / "cache";
  go.build.compile.jobs = 2;
  go.build.root = spec.root;
  go.build.allow = spec.solution.allow;
  go.run_worker = [fake](const auto& job, const auto& copt, const auto& cb) { return (*fake)(job, copt, cb); };
  pipeline::GpuEvaluator eval(spec, go);
  TuneOptions to;
  to.strategy.name = "exhaustive";
  Tuned t{tune(spec, all_shapes(spec), ClassMode::shape, to, eval, db), eval.refused_static.load(), {}};
  t.functions = fake->functions;
  t.cases = fake->cases;
  return t;
}

DbContext spilly_context(std::vector<std::string> allow) {
  DbContext c = synthetic_context();
  c.task = "spilly";
  c.dtypes = {"fp32"};
  c.allow = std::move(allow);
  return c;
}

bool refused_point(const Params& p) { return p.at("N") == 128 || p.at("TIMER") == 1; }

TEST(TuneStatic, RefusedVariantsNeverReachTheGpuAndAreRecordedAsFailed) {
  ScratchDir dir("static");
  const task::TaskSpec spec = task::load_task(kFixture, "spilly");
  ASSERT_TRUE(spec.solution.allow.empty());
  TuningDb db(dir.path() / "db.jsonl", spilly_context({}));
  const Tuned t = tune_spilly(spec, dir.path(), db);

  // 6 points x 2 shape classes; 4 of each class's points are refused.
  EXPECT_EQ(t.refused_static, 8u);
  ASSERT_FALSE(t.functions.empty());
  for (const auto& f : t.functions) {
    EXPECT_FALSE(has(f, "Li128E")) << f << " reached the GPU";
    EXPECT_TRUE(has(f, "Li0EE")) << f << " (TIMER=1) reached the GPU";
  }
  ASSERT_EQ(t.outcome.classes.size(), 2u);
  for (const auto& co : t.outcome.classes) {
    EXPECT_EQ(co.evaluations, 6u);
    EXPECT_EQ(co.refused, 4u) << co.cls.name;
    EXPECT_EQ(co.wrong, 4u) << co.cls.name;
    EXPECT_EQ(co.usable, 2u) << co.cls.name;
    ASSERT_TRUE(co.winner) << co.cls.name;
    EXPECT_FALSE(refused_point(*co.winner)) << params_text(*co.winner);
  }

  // The file, read back: one record per (variant, shape), refusals with the checks' reason.
  const TuningDb back(dir.path() / "db.jsonl", spilly_context({}));
  ASSERT_EQ(back.size(), 12u);
  for (const auto& shape : {"small", "large"})
    for (const DbRecord* r : back.records_for_shape(shape)) {
      const bool refused = refused_point(r->params);
      EXPECT_EQ(r->refused_by_static_checks(), refused) << params_text(r->params) << ": " << r->reason;
      if (!refused) {
        EXPECT_EQ(r->verdict, "correct");
        continue;
      }
      EXPECT_EQ(r->verdict, "failed");
      EXPECT_TRUE(r->cases.empty()) << "a refused variant has no case results: it never ran";
      EXPECT_GT(r->registers, 0) << "the ptxas report is still recorded";
      const bool clock = r->params.at("TIMER") == 1, local = r->params.at("N") == 128;
      // The first finding names the reason (PTX findings come before the ptxas report's).
      const std::string first = clock ? "static check: clock spilly_kernel<float, " : "static check: local_memory spilly_kernel<float, 128, 0>";
      EXPECT_EQ(r->reason.rfind(first, 0), 0u) << r->reason;
      if (local && !clock) {
        EXPECT_TRUE(has(r->reason, "512 byte stack frame (budget 256 bytes)")) << r->reason;
      }
      EXPECT_EQ(has(r->reason, "(and 1 more findings)"), clock && local) << r->reason;
    }
}

TEST(TuneStatic, TheTasksAllowListLetsTheFindingsThrough) {
  ScratchDir dir("static-allow");
  task::TaskSpec spec = task::load_task(kFixture, "spilly");
  spec.solution.allow = {"clock", "local_memory"};
  TuningDb db({}, spilly_context(spec.solution.allow));
  const Tuned t = tune_spilly(spec, dir.path(), db);
  EXPECT_EQ(t.refused_static, 0u);
  // Every variant on its one fp32 case per shape (and a drift probe, a copy of one of those, where
  // the second class's first batch has no recorded reference to check).
  EXPECT_EQ(t.cases.size(), 2u * 6u) << "every variant on its one fp32 case per shape";
  EXPECT_LE(t.functions.size(), 2u * 6u + 1);
  for (const auto& co : t.outcome.classes) {
    EXPECT_EQ(co.refused, 0u);
    ASSERT_TRUE(co.winner);
    EXPECT_EQ(co.winner->at("N"), 128) << "the fake makes N=128 fastest; allowed, it may win";
  }
}

// Records made under another allow list, or before tune applied the checks (no "allow"
// field), are another context: a variant measured unchecked is never reused as if it passed.
TEST(TuneStatic, AllowListIsPartOfTheContext) {
  ScratchDir dir("static-context");
  const fs::path file = dir.path() / "db.jsonl";
  DbContext unchecked = spilly_context({});
  unchecked.allow.reset();
  DbRecord r;
  r.shape = "small";
  r.params = {{"N", 128}, {"TIMER", 0}};
  r.time_us = 1;
  TuningDb(file, unchecked).append(r);
  TuningDb(file, spilly_context({"local_memory"})).append(r);

  const TuningDb none(file, spilly_context({}));
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.other_context, 2);
  EXPECT_EQ(TuningDb(file, spilly_context({"local_memory"})).size(), 1u);
  EXPECT_EQ(TuningDb(file, unchecked).size(), 1u);
  EXPECT_EQ(TuningDb::last_context(file, "spilly")->allow, std::vector<std::string>{"local_memory"});
}

// A replay of a database holding refusals: they count as refused, never win, and the
// TUNE line and the JSON summary say how many.
TEST(TuneStatic, ReplayCountsRefusalsAndNeverPicksThem) {
  ScratchDir dir("static-replay");
  fs::copy(kFixture, dir.path(), fs::copy_options::recursive);
  const task::TaskSpec spec = task::load_task(dir.path(), "spilly");
  auto write_db = [&](const fs::path& file, const DbContext& ctx) {
    TuningDb db(file, ctx);
    for (const auto& s : spec.shapes)
      for (int n : {4, 8, 128})
        for (int timer : {0, 1}) {
          DbRecord r;
          r.shape = s.name;
          r.params = {{"N", n}, {"TIMER", timer}};
          r.registers = 20;
          if (n == 128) {
            r.verdict = "failed";
            r.reason = "static check: local_memory spilly_kernel<float, 128, 0>: uses a 512 byte stack frame";
          } else {
            r.time_us = timer ? 5.0 : 10.0 + n;  // timer variants measured fast: not refused here
          }
          db.append(r);
        }
  };
  write_db(dir.path() / "db.jsonl", spilly_context({}));
  const auto r = ako::testsupport::run_ako(
      "tune task spilly --replay db.jsonl --strategy exhaustive --classes shape --shapes small --json s.json "
      "--no-progress",
      dir.path());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "6 variants evaluated, 2 refused by static checks")) << r.out;
  EXPECT_FALSE(has(r.out, "predate the static checks")) << r.out;
  std::ifstream in(dir.path() / "s.json");
  const auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary["refused_static"], 2);
  ASSERT_EQ(summary["classes"].size(), 1u);
  EXPECT_EQ(summary["classes"][0]["refused_static"], 2);
  EXPECT_EQ(summary["classes"][0]["wrong"], 2);
  EXPECT_EQ(summary["classes"][0]["winner"]["N"], 4);

  DbContext old = spilly_context({});
  old.allow.reset();
  write_db(dir.path() / "old.jsonl", old);
  const auto o = ako::testsupport::run_ako(
      "tune task spilly --replay old.jsonl --strategy exhaustive --classes shape --shapes small --no-progress", dir.path());
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_TRUE(has(o.out, "these records predate the static checks in ako tune")) << o.out;
}

}  // namespace
}  // namespace ako::search
