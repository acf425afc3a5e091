// Shapes the tuning never saw: with a config written by ako tune (classes carry `tuned_on`),
// a shape is served by the first class whose `when` takes it, tuned or not, with a note; only a
// shape no class takes borrows the nearest tuned class whose params are valid for it; a
// hand-written config behaves as before.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "task/cases.hpp"
#include "task/config.hpp"
#include "task/spec.hpp"

namespace ako::task {
namespace {

using Params = std::map<std::string, int64_t>;

TaskSpec real_spec() { return load_task(AKO_SOURCE_DIR, "rmsnorm"); }

task::ConfigClass cls(const std::string& name, const std::string& when, Params params,
                      std::vector<std::pair<std::string, int64_t>> tuned_cols = {}) {
  task::ConfigClass c{name, when, std::move(params), {}};
  for (const auto& [n, cols] : tuned_cols) c.tuned_on.push_back({n, {{"rows", 4096}, {"cols", cols}}, ""});
  return c;
}

Params p(int64_t block, int64_t vec, int64_t rows, int64_t chunks) {
  return {{"BLOCK", block}, {"VEC", vec}, {"ROWS_PER_BLOCK", rows}, {"CHUNKS", chunks}};
}

task::ExprEnv env(int64_t rows, int64_t cols) { return {{"rows", rows}, {"cols", cols}, {"weight", 1}}; }

std::vector<task::ConfigClass> tuned_config() {
  return {cls("cols-odd", "cols % 2 != 0", p(256, 1, 1, 1)),
          cls("head-dim-128", "cols <= 128", p(512, 8, 32, 1), {{"qknorm", 128}}),
          cls("cols-2048", "cols <= 2048", p(256, 8, 2, 2), {{"ltx", 2048}}),
          cls("cols-3072", "cols <= 3072", p(256, 8, 2, 3), {{"flux", 3072}, {"text", 3072}}),
          cls("cols-6144", "cols <= 6144", p(256, 8, 1, 3), {{"flux2", 6144}}),
          cls("cols-8192", "cols <= 8192", p(512, 8, 1, 2)),
          cls("default", "", p(1024, 8, 1, 2))};
}

// Without the catch-all class: shapes beyond every `when`.
std::vector<task::ConfigClass> tuned_config_without_default() {
  auto classes = tuned_config();
  classes.pop_back();
  return classes;
}

TEST(NearestClass, AnUntunedClassServesItsShapesWithItsOwnParams) {
  const task::TaskSpec spec = real_spec();
  const auto classes = tuned_config();
  const task::ClassChoice c = task::choose_config_class(spec, classes, env(4096, 8192), "wide");
  EXPECT_EQ(classes[c.matched].name, "cols-8192");
  EXPECT_EQ(c.index, c.matched);  // not the tuned cols-6144 next door: a tune of other shapes changes nothing here
  EXPECT_FALSE(c.nearest);
  EXPECT_EQ(c.note, "class cols-8192 used for shape wide (not tuned; the class has no tuned params)");
  // The catch-all class takes everything beyond: its own params too.
  const task::ClassChoice huge = task::choose_config_class(spec, classes, env(64, 16384), "huge");
  EXPECT_EQ(classes[huge.index].name, "default");
  EXPECT_FALSE(huge.nearest);
  // A shape inside a tuned class that was not among its shapes: that class, with a note.
  const task::ClassChoice narrow = task::choose_config_class(spec, classes, env(1, 256), "h256");
  EXPECT_EQ(classes[narrow.matched].name, "cols-2048");
  EXPECT_FALSE(narrow.nearest);
  EXPECT_EQ(narrow.note, "class cols-2048 used for shape h256 (not tuned; the class was tuned on ltx)");
}

TEST(NearestClass, AShapeNoClassTakesBorrowsTheNearestTunedClass) {
  const task::TaskSpec spec = real_spec();
  const auto classes = tuned_config_without_default();
  const task::ClassChoice c = task::choose_config_class(spec, classes, env(64, 16384), "huge");
  EXPECT_EQ(c.matched, -1);
  ASSERT_GE(c.index, 0);
  EXPECT_EQ(classes[c.index].name, "cols-6144");  // |log2(16384/6144)| beats every other tuned shape
  EXPECT_TRUE(c.nearest);
  EXPECT_EQ(c.note, "nearest class cols-6144 used for shape huge (not tuned; no class takes it)");
}

TEST(NearestClass, TunedShapesAndHandWrittenConfigsSayNothing) {
  const task::TaskSpec spec = real_spec();
  const auto classes = tuned_config();
  const task::ClassChoice flux = task::choose_config_class(spec, classes, env(4608, 3072), "flux");
  EXPECT_EQ(classes[flux.index].name, "cols-3072");
  EXPECT_TRUE(flux.tuned_here);
  EXPECT_EQ(flux.note, "");
  // The committed hand-written config: first matching class, no note, whatever the shape.
  const task::ClassChoice hand = task::choose_config_class(spec, spec.config_classes, env(4096, 8192), "wide");
  EXPECT_EQ(spec.config_classes[hand.index].name, "cols-8192");
  EXPECT_FALSE(hand.nearest);
  EXPECT_EQ(hand.note, "");
}

TEST(NearestClass, ATunedClassWhoseParamsCannotRunIsSkipped) {
  const task::TaskSpec spec = real_spec();
  const auto classes = tuned_config_without_default();
  // cols 9002 is even (past cols-odd), past every other class and not a multiple of 8: every
  // tuned class has VEC=8, so none can stand in; the first allowed values, said.
  const task::ClassChoice c = task::choose_config_class(spec, classes, env(4096, 9002), "odd");
  EXPECT_EQ(c.index, -1);
  EXPECT_FALSE(c.nearest);
  EXPECT_EQ(c.note,
            "shape odd (not tuned): no class takes it and no tuned class's params are valid for it; the first allowed values");
  EXPECT_FALSE(task::params_valid(spec, p(256, 8, 1, 1), env(4096, 3001)));
  EXPECT_TRUE(task::params_valid(spec, p(256, 1, 1, 1), env(4096, 3001)));
  EXPECT_FALSE(task::params_valid(spec, p(256, 8, 1, 8), env(4096, 1024)));  // CHUNKS beyond the row
}

TEST(NearestClass, CasesUseTheChosenClassAndCarryTheNote) {
  task::TaskSpec spec = real_spec();
  spec.config_classes = tuned_config_without_default();
  spec.shapes.push_back({"wide-8192", {{"rows", 4096}, {"cols", 8192}}, "test"});
  spec.shapes.push_back({"wide-16384", {{"rows", 64}, {"cols", 16384}}, "test"});
  const auto cases = task::expand_cases(spec, {{"wide-8192", "wide-16384", "flux1-single"}, {}}, {}, false);
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    if (c.shape->name == "wide-8192") {
      EXPECT_EQ(c.config_class, "cols-8192");
      EXPECT_EQ(c.params, p(512, 8, 1, 2));
      EXPECT_NE(c.config_note.find("class cols-8192 used for shape wide-8192 (not tuned"), std::string::npos);
    } else if (c.shape->name == "wide-16384") {
      EXPECT_EQ(c.config_class, "cols-6144");
      EXPECT_EQ(c.params, p(256, 8, 1, 3));
      EXPECT_NE(c.config_note.find("nearest class cols-6144 used for shape wide-16384"), std::string::npos);
    } else {
      EXPECT_EQ(c.config_class, "cols-3072");
      EXPECT_NE(c.config_note.find("not tuned; the class was tuned on flux, text"), std::string::npos) << c.config_note;
    }
  }
}

TEST(NearestClass, ConfigFileRoundTripsTunedOn) {
  const task::TaskSpec spec = real_spec();
  const nlohmann::json doc = nlohmann::json::parse(R"({"schema": "ako.config/1", "classes": [
    {"name": "a", "when": "cols <= 3072", "params": {"BLOCK": 256},
     "tuned_on": [{"name": "flux1-single", "dims": {"rows": 4608, "cols": 3072}}]},
    {"name": "b", "params": {"BLOCK": 512}}]})");
  const auto classes = task::parse_config(doc, "c.json", spec);
  ASSERT_EQ(classes[0].tuned_on.size(), 1u);
  EXPECT_EQ(classes[0].tuned_on[0].name, "flux1-single");
  EXPECT_EQ(classes[0].tuned_on[0].dims.at("cols"), 3072);
  EXPECT_TRUE(classes[1].tuned_on.empty());
  nlohmann::json bad = doc;
  bad["classes"][0]["tuned_on"][0]["dims"]["heads"] = 2;
  EXPECT_THROW(task::parse_config(bad, "c.json", spec), Error);
}

TEST(NearestClass, ConfigFileRoundTripsPartial) {
  const task::TaskSpec spec = real_spec();
  nlohmann::json doc = nlohmann::json::parse(R"({"schema": "ako.config/1", "classes": [
    {"name": "a", "when": "cols <= 3072", "params": {"BLOCK": 256},
     "tuned_on": [{"name": "flux1-single", "dims": {"rows": 4608, "cols": 3072}}],
     "partial": {"evaluated": 608, "kept": false, "winner_faster_pct": 1.25}},
    {"name": "b", "params": {"BLOCK": 512}}]})");
  const auto classes = task::parse_config(doc, "c.json", spec);
  ASSERT_TRUE(classes[0].partial.has_value());
  EXPECT_EQ(classes[0].partial->evaluated, 608);
  EXPECT_FALSE(classes[0].partial->kept);
  EXPECT_DOUBLE_EQ(classes[0].partial->winner_faster_pct, 1.25);
  EXPECT_FALSE(classes[1].partial.has_value());
  doc["classes"][0]["partial"]["kept"] = 1;  // not a boolean
  EXPECT_THROW(task::parse_config(doc, "c.json", spec), Error);
}

}  // namespace
}  // namespace ako::task
