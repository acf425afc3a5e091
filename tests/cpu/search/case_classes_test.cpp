// Config classes that split a shape's cases by a flag, an axis or the dtype (`when: "weight"`,
// `"dtype == 'fp16'"`): each class
// takes the cases whose `when` it is the first to hold, is scored on those cases only (their IQMs
// in the shape's one record), and the written config runs each case on its own class's winner.
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "search/space.hpp"
#include "search/tuner.hpp"
#include "search_fixture.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"

namespace ako::search {
namespace {

using namespace testing;

// rmsnorm's flag `weight` splits every shape's cases in two.
task::ConfigClass config_class(const std::string& name, const std::string& when, int64_t block) {
  task::ConfigClass c;
  c.name = name;
  c.when = when;
  c.params = {{"BLOCK", block}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 3}};
  return c;
}

std::vector<const task::ShapeSpec*> two_shapes(const task::TaskSpec& spec) {
  std::vector<const task::ShapeSpec*> out;
  for (const auto& s : spec.shapes)
    if (s.dims.at("cols") == 3072 && out.size() < 2) out.push_back(&s);
  return out;
}

// A landscape whose weighted cases are fastest at BLOCK 256 and the unweighted ones at BLOCK
// 512 (a whole-shape score prefers 512: the unweighted cases weigh more), every other param
// neutral; with `fail_unweighted_at`, the unweighted cases of that BLOCK fail.
// `first_group` says which cases are the fast-at-256 ones (default: the weighted).
using CaseGroup = std::function<bool(const task::ShapeVariant&)>;
bool is_weighted(const task::ShapeVariant& v) { return v.env.at("weight") == 1; }

void write_split_landscape(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes,
                           const fs::path& file, int64_t fail_unweighted_at = 0, const CaseGroup& first_group = is_weighted) {
  fs::remove(file);
  TuningDb db(file, synthetic_context());
  const Space space(spec);
  for (const auto* s : shapes) {
    const auto variants = task::shape_variant_cases(spec, *s);
    for (const auto& pt : enumerate(space, {s}).valid) {
      DbRecord r;
      r.shape = s->name;
      r.params = space.params_of(pt);
      r.registers = model_registers(r.params);
      const double block = static_cast<double>(r.params.at("BLOCK"));
      for (const auto& v : variants) {
        const bool weighted = first_group(v);
        for (const auto& label : v.labels) {
          DbCase c;
          c.label = label;
          c.ci_rel = 0.003;
          c.time_us = weighted ? 10.0 + std::abs(block - 256) / 50 : 20.0 + std::abs(block - 512) / 50;
          c.verdict = !weighted && r.params.at("BLOCK") == fail_unweighted_at ? "failed" : "correct";
          if (c.verdict != "correct") r.verdict = "failed";
          r.time_us += c.time_us;
          r.cases.push_back(c);
        }
      }
      db.append(std::move(r));
    }
  }
}

// An exhaustive tune of the config's classes, replayed from the landscape file.
TuneOutcome replay_tune(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes,
                        const fs::path& landscape) {
  ReplayEvaluator ev(landscape, synthetic_context());
  TuningDb db("", synthetic_context());
  TuneOptions opt;
  opt.strategy.name = "exhaustive";
  return tune(spec, shapes, ClassMode::config, opt, ev, db);
}

// `doc` written as the synthetic device's config in workspace `ws`, the task loaded with it and
// the shapes' compare cases expanded, as `ako run` would run them.
std::vector<task::Case> cases_with_config(const fs::path& ws, const task::TaskSpec& spec, const nlohmann::json& doc,
                                          const std::vector<const task::ShapeSpec*>& shapes) {
  write_file_atomically(ws / spec.solution.config / task::device_config_file_name("Synthetic H100"), doc.dump(2));
  task::TaskSpec tuned = task::load_task(ws, "rmsnorm");
  EXPECT_FALSE(task::use_device_config(tuned, "Synthetic H100", task::kDeviceFromGpu).fallback);
  task::CaseFilter only;
  for (const auto* s : shapes) only.shapes.push_back(s->name);
  return task::expand_cases(tuned, only, {}, false);
}

TEST(CaseClasses, AClassNamingAFlagTakesThoseCasesAndTheNextClassTheRest) {
  task::TaskSpec spec = real_spec();
  spec.config_classes = {config_class("weighted", "weight", 128), config_class("rest", "", 128)};
  const auto shapes = two_shapes(spec);
  ASSERT_EQ(shapes.size(), 2u);
  const auto classes = make_classes(spec, shapes, ClassMode::config);
  ASSERT_EQ(classes.size(), 2u);
  for (const auto& c : classes) {
    ASSERT_EQ(c.shapes.size(), 2u) << c.name;
    for (const auto* s : shapes) {
      ASSERT_TRUE(c.only_cases.count(s->name)) << c.name;
      const auto& labels = c.only_cases.at(s->name);
      // both dtypes of the spec, one flag value
      const std::string flag = c.name == "weighted" ? " weight" : " noweight";
      EXPECT_EQ(labels, (std::set<std::string>{s->name + " bf16" + flag, s->name + " fp16" + flag})) << c.name;
    }
  }
  // --classes shape still gives each shape one class over all its cases
  for (const auto& c : make_classes(spec, shapes, ClassMode::shape))
    EXPECT_TRUE(c.only_cases.empty()) << c.name;
}

TEST(CaseClasses, CasesNoClassTakesGetAClassOfTheirOwnAfterTheConfigs) {
  task::TaskSpec spec = real_spec();
  spec.config_classes = {config_class("weighted", "weight", 128)};
  const auto shapes = two_shapes(spec);
  const auto classes = make_classes(spec, shapes, ClassMode::config);
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0].name, "weighted");
  for (size_t i = 1; i < 3; ++i) {
    const auto* s = shapes[i - 1];
    EXPECT_EQ(classes[i].name, "shape-" + s->name);
    EXPECT_EQ(classes[i].shapes, std::vector<const task::ShapeSpec*>{s});
    EXPECT_EQ(classes[i].only_cases.at(s->name),
              (std::set<std::string>{s->name + " bf16 noweight", s->name + " fp16 noweight"}));
  }
}

TEST(CaseClasses, AClassIsScoredOnItsOwnCasesOnly) {
  DbRecord r;
  r.shape = "s";
  r.time_us = 30;
  r.cases = {{"s bf16 weight", "correct", 10, 0, 0}, {"s bf16 noweight", "failed", 0, 0, 0},
             {"s fp16 weight", "correct", 11, 0, 0}};
  r.verdict = "failed";
  const std::set<std::string> weighted{"s bf16 weight", "s fp16 weight"}, unweighted{"s bf16 noweight"};
  EXPECT_EQ(record_time(r, &weighted), 21.0);  // the failure is another class's
  bool wrong = false;
  EXPECT_FALSE(record_time(r, &unweighted, &wrong));
  EXPECT_TRUE(wrong);
  EXPECT_FALSE(record_time(r, nullptr));  // the whole shape: failed
  const std::set<std::string> absent{"s bf16 other"};
  EXPECT_FALSE(record_time(r, &absent));
}

TEST(CaseClasses, EachClassWinsOnItsCasesAndTheWrittenConfigRunsThem) {
  ScratchDir dir("case-classes");
  const fs::path ws = dir.workspace();
  task::TaskSpec spec = real_spec(ws);
  spec.config_classes = {config_class("weighted", "weight", 128), config_class("rest", "", 128)};
  const auto shapes = two_shapes(spec);
  const fs::path land = dir.path() / "landscape.jsonl";
  write_split_landscape(spec, shapes, land, /*fail_unweighted_at=*/256);
  const TuneOutcome o = replay_tune(spec, shapes, land);
  ASSERT_EQ(o.classes.size(), 2u);
  ASSERT_TRUE(o.classes[0].winner && o.classes[1].winner);
  // BLOCK 256 wins the weighted cases although its unweighted cases failed; 512 the others
  EXPECT_EQ(o.classes[0].winner->at("BLOCK"), 256);
  EXPECT_EQ(o.classes[1].winner->at("BLOCK"), 512);
  EXPECT_GT(o.classes[1].wrong, 0u);  // the failed unweighted cases count against "rest" only
  // the coverage rows compare each class's cases with their own best
  for (const auto& row : o.coverage) EXPECT_NEAR(row.loss_pct, 0.0, 1e-9) << row.shape << " " << row.cls;
  EXPECT_EQ(o.coverage.size(), 4u);

  const nlohmann::json doc = config_document(o, "ako tune test");
  EXPECT_EQ(doc["classes"][0]["when"], "weight");
  const auto cases = cases_with_config(ws, spec, doc, shapes);
  ASSERT_EQ(cases.size(), 8u);
  for (const auto& c : cases) {
    EXPECT_EQ(c.params.at("BLOCK"), c.flags.at("weight") ? 256 : 512) << c.label();
    EXPECT_EQ(c.config_class, c.flags.at("weight") ? "weighted" : "rest") << c.label();
  }
}

// `ako tune --where EXPR`: only the cases EXPR holds for are scored; with --classes shape each
// shape's class is named by EXPR and its `when` adds it, so a written config runs those cases on
// the new class and leaves the shape's other cases with the classes they had.
TEST(CaseClasses, WhereScoresOnlyItsCasesAndNamesTheShapesClassByIt) {
  task::TaskSpec spec = real_spec();
  spec.config_classes = {config_class("rest", "", 128)};
  const auto shapes = two_shapes(spec);
  const auto classes = make_classes(spec, shapes, ClassMode::shape, "!weight");
  ASSERT_EQ(classes.size(), 3u);  // one per shape, then the config's class (untuned)
  for (size_t i = 0; i < 2; ++i) {
    const auto* s = shapes[i];
    EXPECT_EQ(classes[i].name, "shape-" + s->name + "-not-weight");
    EXPECT_EQ(classes[i].when, fmt::format("(cols == {} && rows == {}) && (!weight)", s->dims.at("cols"), s->dims.at("rows")));
    EXPECT_EQ(classes[i].only_cases.at(s->name),
              (std::set<std::string>{s->name + " bf16 noweight", s->name + " fp16 noweight"}));
    EXPECT_EQ(classes[i].current.at("BLOCK"), 128) << "starts from the class that serves those cases now";
  }
  EXPECT_TRUE(classes[2].shapes.empty());

  // --classes config: the config's classes are scored on those cases only.
  const auto config = make_classes(spec, shapes, ClassMode::config, "dtype == 'fp16' && weight");
  ASSERT_EQ(config.size(), 1u);
  for (const auto* s : shapes)
    EXPECT_EQ(config[0].only_cases.at(s->name), (std::set<std::string>{s->name + " fp16 weight"}));

  EXPECT_THROW(make_classes(spec, shapes, ClassMode::shape, "dtype == 'fp32'"), Error);  // no such case
  try {
    make_classes(spec, shapes, ClassMode::shape, "wieght");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--where 'wieght'"), std::string::npos) << e.what();
  }
}

TEST(CaseClasses, AWhereClassWinsOnItsCasesAndTheWrittenConfigRunsThemAheadOfTheRest) {
  ScratchDir dir("where-classes");
  const fs::path ws = dir.workspace();
  task::TaskSpec spec = real_spec(ws);
  spec.config_classes = {config_class("rest", "", 128)};
  const auto shapes = two_shapes(spec);
  const fs::path land = dir.path() / "landscape.jsonl";
  write_split_landscape(spec, shapes, land);  // unweighted cases fastest at BLOCK 512
  ReplayEvaluator ev(land, synthetic_context());
  TuningDb db("", synthetic_context());
  TuneOptions opt;
  opt.strategy.name = "exhaustive";
  opt.where = "!weight";
  const TuneOutcome o = tune(spec, shapes, ClassMode::shape, opt, ev, db);
  ASSERT_EQ(o.classes.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(o.classes[i].winner) << o.classes[i].cls.name;
    EXPECT_EQ(o.classes[i].winner->at("BLOCK"), 512) << o.classes[i].cls.name;
  }

  const nlohmann::json doc = config_document(o, "ako tune test");
  const auto cases = cases_with_config(ws, spec, doc, shapes);
  ASSERT_EQ(cases.size(), 8u);
  for (const auto& c : cases) {
    // the weighted cases keep the class they had, its params untouched
    EXPECT_EQ(c.params.at("BLOCK"), c.flags.at("weight") ? 128 : 512) << c.label();
    const std::string shape = c.label().substr(0, c.label().find(' '));  // (c.shape points into a spec gone by now)
    EXPECT_EQ(c.config_class, c.flags.at("weight") ? "rest" : "shape-" + shape + "-not-weight") << c.label();
  }
}

TEST(CaseClasses, AClassNamingTheDtypeTakesThatDtypesCases) {
  task::TaskSpec spec = real_spec();
  spec.config_classes = {config_class("half", "dtype == 'fp16'", 128), config_class("rest", "", 128)};
  const auto shapes = two_shapes(spec);
  const auto classes = make_classes(spec, shapes, ClassMode::config);
  ASSERT_EQ(classes.size(), 2u);
  for (const auto& c : classes)
    for (const auto* s : shapes) {
      const std::string d = c.name == "half" ? " fp16" : " bf16";
      EXPECT_EQ(c.only_cases.at(s->name), (std::set<std::string>{s->name + d + " weight", s->name + d + " noweight"}))
          << c.name;
    }
}

// fp16's cases fastest at BLOCK 256, bf16's at 512: each dtype's class wins its own, the written
// config runs each case on its dtype's winner, and a dtype the config does not know is refused.
TEST(CaseClasses, EachDtypeClassWinsOnItsCasesAndTheWrittenConfigRunsThem) {
  ScratchDir dir("dtype-classes");
  const fs::path ws = dir.workspace();
  task::TaskSpec spec = real_spec(ws);
  spec.config_classes = {config_class("half", "dtype == 'fp16'", 128), config_class("rest", "", 128)};
  const auto shapes = two_shapes(spec);
  const fs::path land = dir.path() / "landscape.jsonl";
  const int64_t fp16 = task::string_value("fp16");
  write_split_landscape(spec, shapes, land, 0, [&](const task::ShapeVariant& v) { return v.env.at("dtype") == fp16; });
  const TuneOutcome o = replay_tune(spec, shapes, land);
  ASSERT_EQ(o.classes.size(), 2u);
  ASSERT_TRUE(o.classes[0].winner && o.classes[1].winner);
  EXPECT_EQ(o.classes[0].winner->at("BLOCK"), 256);
  EXPECT_EQ(o.classes[1].winner->at("BLOCK"), 512);

  const nlohmann::json doc = config_document(o, "ako tune test");
  EXPECT_EQ(doc["classes"][0]["when"], "dtype == 'fp16'");
  const auto cases = cases_with_config(ws, spec, doc, shapes);
  ASSERT_EQ(cases.size(), 8u);
  for (const auto& c : cases) {
    EXPECT_EQ(c.params.at("BLOCK"), c.dtype == DType::fp16 ? 256 : 512) << c.label();
    EXPECT_EQ(c.config_class, c.dtype == DType::fp16 ? "half" : "rest") << c.label();
  }

  nlohmann::json bad = doc;
  bad["classes"][0]["when"] = "dtype == 'fp8'";
  write_file_atomically(ws / spec.solution.config / task::device_config_file_name("Synthetic H100"), bad.dump(2));
  try {
    task::load_task(ws, "rmsnorm");
    FAIL() << "expected a SpecError";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("compares with 'fp8', which is no axis's value"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'fp16'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ako::search
