// tasks/qknorm runs two forms on every shape (per head; across heads, a flag), and a tune class
// (one shape, or a config class's shapes) takes one point for all of them. The forms have their
// own parameters (GROUP, ROWS per head; AGROUP, AROWS, CHUNKS across heads; VEC and BLOCK shared),
// so every class has valid points whichever way `ako tune` forms its classes, the classes of
// default.json (over dims only) are usable per config class, and the points the tuner starts from
// (each class's params) are valid on every shape the class takes.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>

#include "search/space.hpp"
#include "search/tuner.hpp"
#include "task/spec.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

const std::filesystem::path kRoot = AKO_SOURCE_DIR;

using testing::all_shapes;

TEST(QknormSpace, EveryTuneClassStartsFromAPointValidForBothForms) {
  const task::TaskSpec spec = task::load_task(kRoot, "qknorm");
  const Space space(spec);
  for (ClassMode mode : {ClassMode::config, ClassMode::shape}) {
    const auto classes = make_classes(spec, all_shapes(spec), mode);  // per config class: no refusal
    size_t tuned = 0;
    for (const auto& c : classes) {
      if (c.shapes.empty()) continue;
      ++tuned;
      for (const auto* s : c.shapes) {
        const auto why = space.rejection(c.current, *s);  // every flag combination, both forms
        EXPECT_FALSE(why) << c.name << " on " << s->name << ": " << why.value_or("");
      }
    }
    EXPECT_EQ(tuned, mode == ClassMode::shape ? spec.shapes.size() : 2u)  // head-dim-128 and head-dim-64
        << (mode == ClassMode::shape ? "per shape" : "per config class");
  }
}

// The search space itself on every model shape: many points valid for both forms, in which each
// form's parameters take several values (the search can move either form).
TEST(QknormSpace, ValidPointsExistOnEveryModelShape) {
  const task::TaskSpec spec = task::load_task(kRoot, "qknorm");
  const Space space(spec);
  for (const auto& s : spec.shapes) {
    const auto t0 = std::chrono::steady_clock::now();
    const Enumeration e = enumerate(space, {&s});
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GT(e.valid.size(), 100u) << s.name;
    EXPECT_LT(secs, 30.0) << s.name << ": enumerating " << e.total << " points";
    std::map<std::string, std::set<int64_t>> seen;
    for (const auto& p : e.valid)
      for (const auto& [name, v] : space.params_of(p)) seen[name].insert(v);
    for (const char* name : {"GROUP", "ROWS", "AGROUP", "AROWS", "CHUNKS", "STORE_CS"})
      EXPECT_GT(seen[name].size(), 1u) << s.name << ": " << name;
  }
  EXPECT_EQ(space.size(), 3u * 5 * 6 * 3 * 6 * 3 * 10 * 2);  // VEC BLOCK GROUP ROWS AGROUP AROWS CHUNKS STORE_CS
}

}  // namespace
}  // namespace ako::search
