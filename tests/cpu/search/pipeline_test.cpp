// The tune loop as a pipeline, with fake evaluators on the synthetic landscape: the next
// batch is prepared while the current one is measured, a learning strategy never runs ahead
// of its scores, the ETA follows the measured rate, and a stop (--time) ends the search
// cleanly so that a second run resumes from the database.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "search/tuner.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

using namespace testing;

// prepare() runs on the tuner's helper thread; measure() waits (up to 1 s) for the next
// batch's prepare() to start, and counts the measures that saw it start: overlap.
class OverlapEvaluator : public ReplayEvaluator {
 public:
  using ReplayEvaluator::ReplayEvaluator;
  bool concurrent() const override { return true; }
  std::unique_ptr<PreparedBatch> prepare(std::vector<EvalRequest> batch) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++prepares_;
    }
    cv_.notify_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // "compiling"
    return Evaluator::prepare(std::move(batch));
  }
  std::vector<DbRecord> measure(PreparedBatch& b) override {
    std::unique_lock<std::mutex> lock(mutex_);
    const int wanted = measures_ + 2;  // this batch's prepare and the next one's
    if (cv_.wait_for(lock, std::chrono::seconds(1), [&] { return prepares_ >= wanted; })) ++overlapped;
    ++measures_;
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // "measuring", longer than a compile
    return evaluate(b.requests);
  }
  int overlapped = 0;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int prepares_ = 0, measures_ = 0;
};

TuneOptions options(const std::string& strategy, size_t budget, size_t batch) {
  TuneOptions opt;
  opt.strategy.name = strategy;
  opt.strategy.seed = 5;
  opt.budget = budget;
  opt.batch = batch;
  return opt;
}

TEST(Pipeline, NextBatchIsPreparedWhileTheCurrentOneIsMeasured) {
  Landscape& l = landscape();
  OverlapEvaluator ev(l.file, synthetic_context());
  TuningDb db("", synthetic_context());
  const std::vector<const task::ShapeSpec*> shapes{&l.spec.shapes[0], &l.spec.shapes[1]};
  const TuneOutcome o = tune(l.spec, shapes, ClassMode::shape, options("exhaustive", 40, 8), ev, db);
  EXPECT_EQ(o.pipeline.batches, 10u);  // 2 classes x 40 variants / 8
  // Every batch but the last had the next one compiling while it was measured.
  EXPECT_EQ(ev.overlapped, 9);
  EXPECT_GT(o.pipeline.prepare_s, 0.15);
  EXPECT_GT(o.pipeline.hidden_fraction(), 0.5) << "prepare " << o.pipeline.prepare_s << " s, waited "
                                               << o.pipeline.wait_s << " s";
}

TEST(Pipeline, SequentialEvaluatorHidesNothing) {
  Landscape& l = landscape();
  ReplayEvaluator ev(l.file, synthetic_context());
  TuningDb db("", synthetic_context());
  const TuneOutcome o = tune(l.spec, {&l.spec.shapes[0]}, ClassMode::shape, options("random", 24, 8), ev, db);
  EXPECT_EQ(o.pipeline.batches, 3u);
  EXPECT_DOUBLE_EQ(o.pipeline.hidden_s(), 0.0);
}

// Records what each class was asked, per shape.
class AskLog : public ReplayEvaluator {
 public:
  AskLog(const fs::path& f, const DbContext& c, bool concurrent) : ReplayEvaluator(f, c), concurrent_(concurrent) {}
  bool concurrent() const override { return concurrent_; }
  std::unique_ptr<PreparedBatch> prepare(std::vector<EvalRequest> batch) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& r : batch) asked[r.shapes.front()->name].push_back(params_text(r.params));
    return Evaluator::prepare(std::move(batch));
  }
  std::map<std::string, std::vector<std::string>> asked;

 private:
  bool concurrent_;
  std::mutex mutex_;
};

// Interleaving classes must not change what a learning strategy asks: each class sees the
// same ask/tell sequence as when it is tuned alone.
TEST(Pipeline, EvolveAsksEachClassExactlyAsWhenTunedAlone) {
  Landscape& l = landscape();
  const std::vector<const task::ShapeSpec*> shapes{&l.spec.shapes[1], &l.spec.shapes[5], &l.spec.shapes[9]};
  AskLog together(l.file, synthetic_context(), true);
  TuningDb db("", synthetic_context());
  const TuneOutcome all = tune(l.spec, shapes, ClassMode::shape, options("evolve", 60, 8), together, db);
  EXPECT_GT(all.pipeline.batches, 3u * 60 / 8 - 1);
  for (const auto* s : shapes) {
    AskLog alone(l.file, synthetic_context(), false);
    TuningDb db1("", synthetic_context());
    tune(l.spec, {s}, ClassMode::shape, options("evolve", 60, 8), alone, db1);
    ASSERT_EQ(alone.asked[s->name].size(), 60u);
    EXPECT_EQ(together.asked[s->name], alone.asked[s->name]) << s->name;
  }
}

TEST(Pipeline, EtaFollowsTheMeasuredRate) {
  EXPECT_FALSE(estimate_eta(5, 0, 100));
  EXPECT_DOUBLE_EQ(*estimate_eta(10, 20, 100), 40.0);  // 0.5 s per variant, 80 left
  EXPECT_DOUBLE_EQ(*estimate_eta(10, 100, 100), 0.0);

  // A fake clock that advances 2 s per measured batch of 8: 0.25 s per variant.
  Landscape& l = landscape();
  ReplayEvaluator ev(l.file, synthetic_context());
  TuningDb db("", synthetic_context());
  double now = 0;
  TuneOptions opt = options("exhaustive", 32, 8);
  opt.clock = [&] { return now; };
  class Ticking : public ReplayEvaluator {
   public:
    Ticking(const fs::path& f, double& now) : ReplayEvaluator(f, synthetic_context()), now_(now) {}
    std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& b) override {
      now_ += 2;
      return ReplayEvaluator::evaluate(b);
    }
    double& now_;
  } ticking(l.file, now);
  std::vector<Progress> seen;
  tune(l.spec, {&l.spec.shapes[0]}, ClassMode::shape, opt, ticking, db, [&](const Progress& p) { seen.push_back(p); });
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].variants_planned, 32u);
  EXPECT_EQ(seen[0].variants_done, 8u);
  EXPECT_DOUBLE_EQ(seen[0].elapsed_s, 2.0);
  EXPECT_DOUBLE_EQ(*seen[0].eta_s, 6.0);  // 24 left at 0.25 s
  EXPECT_DOUBLE_EQ(*seen[2].eta_s, 2.0);
  EXPECT_DOUBLE_EQ(*seen[3].eta_s, 0.0);
}

// The stop condition (--time) is asked before every batch: the batches already started are
// recorded, the classes say they are incomplete, and a rerun resumes and ends where one
// uninterrupted run ends.
TEST(Pipeline, StopEndsCleanlyAndARerunResumes) {
  Landscape& l = landscape();
  ScratchDir dir("stop");
  const fs::path dbf = dir.path() / "tune.jsonl";
  const std::vector<const task::ShapeSpec*> shapes{&l.spec.shapes[1], &l.spec.shapes[6]};
  TuneOptions opt = options("evolve", 48, 8);

  int asks = 0;
  TuneOptions stopping = opt;
  stopping.stop = [&] { return ++asks > 3; };
  ReplayEvaluator first(l.file, synthetic_context());
  TuneOutcome partial;
  {
    TuningDb db(dbf, synthetic_context());
    partial = tune(l.spec, shapes, ClassMode::shape, stopping, first, db);
  }
  EXPECT_TRUE(partial.stopped);
  size_t asked = 0;
  for (const auto& co : partial.classes) {
    if (co.cls.shapes.empty()) continue;
    EXPECT_FALSE(co.complete) << co.cls.name;
    asked += co.evaluations;
  }
  EXPECT_EQ(asked, 3u * 8);
  EXPECT_EQ(partial.measured, 3u * 8);
  // A written config keeps the incomplete classes' params unless the winner so far beat them by
  // more than 1% in this search; a class whose params were measured is marked partial and tuned.
  const nlohmann::json doc = config_document(partial, "t");
  for (size_t i = 0; i < partial.classes.size(); ++i) {
    const ClassOutcome& co = partial.classes[i];
    const nlohmann::json& c = doc["classes"][i];
    const bool measured = co.winner && co.current_score.has_value();
    const bool beat = measured && co.winner_score < *co.current_score * (1.0 - kPartialWinMargin);
    EXPECT_EQ(c.contains("tuned_on"), measured) << c.dump();
    EXPECT_EQ(c.contains("partial"), measured) << c.dump();
    if (!beat) {
      EXPECT_EQ(c["params"], nlohmann::json(co.cls.current)) << c.dump();
    }
  }

  ReplayEvaluator second(l.file, synthetic_context());
  TuningDb db(dbf, synthetic_context());
  const TuneOutcome resumed = tune(l.spec, shapes, ClassMode::shape, opt, second, db);
  EXPECT_FALSE(resumed.stopped);
  EXPECT_EQ(resumed.reused, 3u * 8);
  EXPECT_EQ(resumed.measured, 2u * 48 - 3 * 8);

  ReplayEvaluator fresh(l.file, synthetic_context());
  TuningDb db2("", synthetic_context());
  const TuneOutcome once = tune(l.spec, shapes, ClassMode::shape, opt, fresh, db2);
  for (size_t i = 0; i < once.classes.size(); ++i) {
    EXPECT_TRUE(resumed.classes[i].complete);
    EXPECT_EQ(resumed.classes[i].winner, once.classes[i].winner) << once.classes[i].cls.name;
  }
  const nlohmann::json written = config_document(resumed, "t");  // kept: a range-for over a temporary's member dangles
  for (const auto& c : written["classes"])
    if (c["name"].get<std::string>().starts_with("shape-")) {
      ASSERT_TRUE(c.contains("tuned_on")) << c.dump();
      EXPECT_EQ(c["tuned_on"].size(), 1u);
    }
}

// A record of a compile killed at the time limit (a loaded machine can make one of any
// variant) is measured again on resume, and the new record replaces it; the rest is reused.
TEST(Pipeline, AResumeMeasuresAgainWhatACompileLimitKilled) {
  Landscape& l = landscape();
  ScratchDir dir("limits");
  const fs::path dbf = dir.path() / "tune.jsonl";
  const std::vector<const task::ShapeSpec*> shapes{&l.spec.shapes[1]};
  const TuneOptions opt = options("evolve", 16, 8);
  ReplayEvaluator first(l.file, synthetic_context());
  TuneOutcome once;
  DbRecord killed;
  {
    TuningDb db(dbf, synthetic_context());
    once = tune(l.spec, shapes, ClassMode::shape, opt, first, db);
    ASSERT_GT(once.measured, 1u);
    killed = *db.records_for_shape(shapes[0]->name).front();
  }
  killed.verdict = "failed";
  killed.reason = "compile_timeout: solution/t/k.cuh: killed at the 120 s compile time limit";
  killed.time_us = 0;
  std::ofstream(dbf, std::ios::app) << to_json(killed).dump() << "\n";

  ReplayEvaluator second(l.file, synthetic_context());
  TuningDb db(dbf, synthetic_context());
  ASSERT_TRUE(db.find(killed.shape, killed.params)->killed_at_compile_limits());
  const TuneOutcome resumed = tune(l.spec, shapes, ClassMode::shape, opt, second, db);
  EXPECT_EQ(resumed.measured, 1u);
  EXPECT_EQ(resumed.reused, once.measured - 1);
  EXPECT_TRUE(db.find(killed.shape, killed.params)->correct());
}

// A compile-only record ("compiled": compiled and checked, never run) is done for a compile-only
// run and never taken for a measurement: a measuring run measures that variant, a compile-only
// rerun does not; a "compiled" record never scores or wins.
TEST(Pipeline, CompileOnlyRecordsAreNeverTakenForMeasurements) {
  Landscape& l = landscape();
  ScratchDir dir("compile-only");
  const fs::path dbf = dir.path() / "tune.jsonl";
  const std::vector<const task::ShapeSpec*> shapes{&l.spec.shapes[1]};
  TuneOptions opt = options("exhaustive", 12, 6);
  {
    // What a compile-only run of the same search records: its variants, verdict "compiled".
    ReplayEvaluator replay(l.file, synthetic_context());
    TuningDb scratch("", synthetic_context());
    tune(l.spec, shapes, ClassMode::shape, opt, replay, scratch);
    TuningDb db(dbf, synthetic_context());
    for (const auto* rec : scratch.records_for_shape(shapes[0]->name)) {
      DbRecord c = *rec;
      c.verdict = kCompiledVerdict;
      c.time_us = 0;
      c.cases.clear();
      db.append(c);
    }
  }
  TuningDb compiled(dbf, synthetic_context());
  ASSERT_EQ(compiled.size(), 12u);
  opt.compile_only = true;
  ReplayEvaluator again(l.file, synthetic_context());
  const TuneOutcome checked = tune(l.spec, shapes, ClassMode::shape, opt, again, compiled);
  EXPECT_EQ(checked.measured, 0u);
  EXPECT_EQ(checked.reused, 12u);
  for (const auto& co : checked.classes) EXPECT_FALSE(co.winner) << co.cls.name;  // compiled is never a score

  opt.compile_only = false;
  ReplayEvaluator measuring(l.file, synthetic_context());
  TuningDb db(dbf, synthetic_context());
  const TuneOutcome measured = tune(l.spec, shapes, ClassMode::shape, opt, measuring, db);
  EXPECT_EQ(measured.measured, 12u);
  EXPECT_EQ(measured.reused, 0u);
  for (const auto& co : measured.classes)
    if (!co.cls.shapes.empty()) {
      EXPECT_TRUE(co.winner) << co.cls.name;
    }
}

}  // namespace
}  // namespace ako::search
