// The tuning database: records round-trip, a torn last line is skipped, an interrupted run
// resumes without measuring anything twice, and a changed source hash (or device) makes the
// old records invisible without deleting them.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "common/error.hpp"
#include "search/tuner.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

using namespace testing;

std::vector<std::string> lines_of(const fs::path& f) {
  std::ifstream in(f);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// Replays a landscape; after `stop_after` batches it throws, like a run killed mid-way.
class InterruptedEvaluator : public ReplayEvaluator {
 public:
  InterruptedEvaluator(const fs::path& f, const DbContext& c, int stop_after)
      : ReplayEvaluator(f, c), stop_after_(stop_after) {}
  std::vector<DbRecord> evaluate(const std::vector<EvalRequest>& batch) override {
    if (stop_after_ >= 0 && batches_ == stop_after_) throw Error("interrupted");
    ++batches_;
    for (const auto& r : batch)
      for (const auto* s : r.shapes) measured.insert(record_key(s->name, r.params));
    return ReplayEvaluator::evaluate(batch);
  }
  std::set<std::string> measured;

 private:
  int stop_after_, batches_ = 0;
};

TEST(TuningDb, RecordRoundTripsThroughJson) {
  DbRecord r;
  r.context = synthetic_context();
  r.shape = "flux1-single";
  r.params = {{"BLOCK", 256}, {"VEC", 8}};
  r.verdict = "incorrect";
  r.reason = "flux1-single bf16 weight: 3 mismatches";
  r.time_us = 12.5;
  r.ci_rel = 0.004;
  r.registers = 40;
  r.cases = {{"flux1-single bf16 weight", "incorrect", 6.0, 0.004}, {"flux1-single bf16 noweight", "correct", 6.5, 0.002}};
  r.recorded_at = "2026-01-01T00:00:00Z";
  const DbRecord b = record_from_json(nlohmann::json::parse(to_json(r).dump()));
  EXPECT_EQ(to_json(b), to_json(r));
  EXPECT_FALSE(b.correct());
  EXPECT_THROW(record_from_json(nlohmann::json{{"schema", "ako.tune/0"}}), Error);
}

TEST(TuningDb, TornLastLineIsSkippedAndAppendsAreWholeLines) {
  ScratchDir dir("db");
  const fs::path f = dir.path() / "sub" / "t.jsonl";
  {
    TuningDb db(f, synthetic_context());
    for (int64_t b : {64, 128, 256}) {
      DbRecord r;
      r.shape = "s";
      r.params = {{"BLOCK", b}};
      r.time_us = static_cast<double>(b);
      db.append(r);
    }
  }
  std::ofstream(f, std::ios::app) << R"({"schema":"ako.tune/1","task":"rms)";  // killed mid-write
  TuningDb db(f, synthetic_context());
  EXPECT_EQ(db.size(), 3u);
  EXPECT_EQ(db.skipped_lines, 1);
  ASSERT_NE(db.find("s", {{"BLOCK", 128}}), nullptr);
  EXPECT_EQ(db.find("s", {{"BLOCK", 128}})->time_us, 128);
  EXPECT_EQ(db.find("s", {{"BLOCK", 512}}), nullptr);
}

TEST(TuningDb, InterruptedRunResumesWithoutMeasuringTwice) {
  ScratchDir dir("resume");
  const task::TaskSpec spec = real_spec();
  const fs::path land = dir.path() / "landscape.jsonl", dbf = dir.path() / "tune.jsonl";
  write_landscape(spec, land);
  std::vector<const task::ShapeSpec*> shapes{&spec.shapes[0], &spec.shapes[1]};  // one config class
  TuneOptions opt;
  opt.strategy.name = "exhaustive";
  opt.batch = 10;

  InterruptedEvaluator first(land, synthetic_context(), 3);
  {
    TuningDb db(dbf, synthetic_context());
    EXPECT_THROW(tune(spec, shapes, ClassMode::config, opt, first, db), Error);
  }
  EXPECT_EQ(first.measured.size(), 3u * 10 * shapes.size());  // three whole batches, both shapes
  EXPECT_EQ(lines_of(dbf).size(), first.measured.size());

  InterruptedEvaluator second(land, synthetic_context(), -1);
  TuningDb db(dbf, synthetic_context());
  EXPECT_EQ(db.size(), first.measured.size());
  const TuneOutcome o = tune(spec, shapes, ClassMode::config, opt, second, db);
  for (const auto& k : second.measured) EXPECT_EQ(first.measured.count(k), 0u) << "measured twice: " << k;
  EXPECT_EQ(o.reused, first.measured.size());
  size_t valid = 0;
  for (const auto& co : o.classes)
    if (!co.cls.shapes.empty()) valid += co.space.valid.size();
  EXPECT_EQ(first.measured.size() + second.measured.size(), valid * shapes.size());
  // The file holds every pair exactly once.
  std::set<std::string> keys;
  for (const auto& line : lines_of(dbf)) {
    const DbRecord r = record_from_json(nlohmann::json::parse(line));
    EXPECT_TRUE(keys.insert(record_key(r.shape, r.params)).second) << "duplicate record " << line;
  }
  EXPECT_EQ(keys.size(), valid * shapes.size());

  // A third run measures nothing at all.
  InterruptedEvaluator third(land, synthetic_context(), -1);
  TuningDb again(dbf, synthetic_context());
  tune(spec, shapes, ClassMode::config, opt, third, again);
  EXPECT_TRUE(third.measured.empty());
}

// Records of medians (made before the IQM: no "centre", times in "median_us") read back as
// such, and are another context for a tune that times IQMs: never mixed with them.
TEST(TuningDb, RecordsOfMediansAreAnotherContextThanIqms) {
  DbRecord r;
  r.context = synthetic_context();
  r.shape = "flux1-single";
  r.params = {{"BLOCK", 256}};
  r.time_us = 12.5;
  r.cases = {{"flux1-single bf16 weight", "correct", 12.5, 0.004}};
  nlohmann::json old = to_json(r);
  EXPECT_FALSE(old.contains("centre"));
  EXPECT_EQ(old["median_us"], 12.5);
  EXPECT_EQ(old["cases"][0]["median_us"], 12.5);
  EXPECT_FALSE(old.contains("iqm_us"));

  DbRecord now = r;
  now.context.centre = kCentreIqm;
  const nlohmann::json j = to_json(now);
  EXPECT_EQ(j["centre"], "iqm");
  EXPECT_EQ(j["iqm_us"], 12.5);
  EXPECT_EQ(j["cases"][0]["iqm_us"], 12.5);
  EXPECT_FALSE(j.contains("median_us"));
  const DbRecord back = record_from_json(j);
  EXPECT_EQ(back.context.centre, kCentreIqm);
  EXPECT_EQ(back.time_us, 12.5);
  EXPECT_EQ(back.cases.at(0).time_us, 12.5);
  EXPECT_NE(back.context.key(), record_from_json(old).context.key());
  EXPECT_EQ(record_from_json(old).context.key(), r.context.key());  // keys of old records unchanged

  ScratchDir dir("centre");
  const fs::path dbf = dir.path() / "tune.jsonl";
  TuningDb medians(dbf, r.context);
  medians.append(r);
  DbContext iqm_ctx = r.context;
  iqm_ctx.centre = kCentreIqm;
  TuningDb iqms(dbf, iqm_ctx);
  EXPECT_EQ(iqms.size(), 0u);
  EXPECT_EQ(iqms.other_context, 1);
  EXPECT_EQ(iqms.other_centre, 1);
  EXPECT_EQ(iqms.other_source, 0);
  nlohmann::json bad = j;
  bad["centre"] = "mean";
  EXPECT_THROW(record_from_json(bad), Error);
}

TEST(TuningDb, ChangedSourceHashOrDeviceInvalidatesOldRecords) {
  ScratchDir dir("invalidate");
  const task::TaskSpec spec = real_spec();
  const fs::path dbf = dir.path() / "tune.jsonl";
  write_landscape(spec, dbf, synthetic_context("old-hash"));
  const size_t n = lines_of(dbf).size();

  TuningDb old_db(dbf, synthetic_context("old-hash"));
  EXPECT_EQ(old_db.size(), n);
  TuningDb fresh(dbf, synthetic_context("new-hash"));
  EXPECT_EQ(fresh.size(), 0u);
  EXPECT_EQ(fresh.other_context, static_cast<int>(n));
  EXPECT_EQ(fresh.other_source, static_cast<int>(n));
  DbContext other_device = synthetic_context("old-hash");
  other_device.device = "Synthetic H200";
  TuningDb dev(dbf, other_device);
  EXPECT_EQ(dev.size(), 0u);
  EXPECT_EQ(dev.other_source, 0);

  // With the new hash the search measures again, and the old lines stay in the file.
  const fs::path land = dir.path() / "landscape.jsonl";
  write_landscape(spec, land, synthetic_context("new-hash"));
  InterruptedEvaluator ev(land, synthetic_context("new-hash"), -1);
  TuneOptions opt;
  opt.strategy.name = "random";
  opt.budget = 5;
  tune(spec, {&spec.shapes[0]}, ClassMode::shape, opt, ev, fresh);
  EXPECT_EQ(ev.measured.size(), 5u);
  EXPECT_EQ(lines_of(dbf).size(), n + 5);
  EXPECT_EQ(TuningDb(dbf, synthetic_context("old-hash")).size(), n);
}

TEST(TuningDb, ReplayUsesTheFilesLastContextAndMissingPointsAreNotEvaluable) {
  ScratchDir dir("replay");
  const task::TaskSpec spec = real_spec();
  const fs::path f = dir.path() / "t.jsonl";
  write_landscape(spec, f, synthetic_context("a"));
  {
    TuningDb db(f, synthetic_context("b"));
    DbRecord r;
    r.shape = spec.shapes[0].name;
    r.params = {{"BLOCK", 256}, {"CHUNKS", 2}, {"ROWS_PER_BLOCK", 1}, {"VEC", 8}};
    r.time_us = 1;
    db.append(r);
  }
  const auto ctx = TuningDb::last_context(f, "rmsnorm");
  ASSERT_TRUE(ctx);
  EXPECT_EQ(ctx->source_hash, "b");
  EXPECT_FALSE(TuningDb::last_context(f, "layernorm"));
  EXPECT_THROW(TuningDb::last_context(dir.path() / "nope.jsonl", ""), Error);

  ReplayEvaluator ev(f, *ctx);
  TuningDb db("", *ctx);
  TuneOptions opt;
  opt.strategy.name = "exhaustive";
  const TuneOutcome o = tune(spec, {&spec.shapes[0]}, ClassMode::shape, opt, ev, db);
  ASSERT_TRUE(o.classes.front().winner);
  EXPECT_EQ(o.classes.front().usable, 1u);
  EXPECT_EQ(ev.misses, o.classes.front().space.valid.size() - 1);
}

}  // namespace
}  // namespace ako::search
