// Tune classes of a task whose config classes depend on an axis (tasks/scale_shift: the
// per-token layouts have classes of their own): per config class each shape's cases are split
// among the classes, per shape it tunes one class per shape starting from the first combination's params.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "search/tuner.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

const std::filesystem::path kRoot = AKO_SOURCE_DIR;

using testing::all_shapes;

TEST(TuneClasses, AxisDependentConfigClassesSplitEachShapesCases) {
  // scale_shift's config sends the per-token layouts (lc, blc) to classes of their own: each
  // shape's cases are split between those and the broadcast layouts' class, every case to
  // exactly one class, as `ako run` picks them.
  const task::TaskSpec spec = task::load_task(kRoot, "scale_shift");
  const auto shapes = all_shapes(spec);
  const auto classes = make_classes(spec, shapes, ClassMode::config);
  size_t split = 0;
  for (const auto* s : shapes) {
    std::set<std::string> all, seen;
    for (const auto& v : task::shape_variant_cases(spec, *s)) all.insert(v.labels.begin(), v.labels.end());
    for (const auto& c : classes) {
      if (std::find(c.shapes.begin(), c.shapes.end(), s) == c.shapes.end()) continue;
      const auto it = c.only_cases.find(s->name);
      const std::set<std::string>& labels = it == c.only_cases.end() ? all : it->second;
      if (it != c.only_cases.end()) ++split;
      for (const auto& l : labels) {
        EXPECT_TRUE(seen.insert(l).second) << l << " in two classes";
        const bool per_token = l.find("layout=lc") != std::string::npos || l.find("layout=blc") != std::string::npos;
        if (it != c.only_cases.end()) {
          EXPECT_EQ(per_token, c.name.rfind("per-token", 0) == 0) << c.name << ": " << l;
        }
      }
    }
    EXPECT_EQ(seen, all) << s->name;
  }
  EXPECT_GT(split, 0u);
}

TEST(TuneClasses, AxisDependentConfigClassesTunePerShape) {
  const task::TaskSpec spec = task::load_task(kRoot, "scale_shift");
  const auto shapes = all_shapes(spec);
  const auto classes = make_classes(spec, shapes, ClassMode::shape);
  size_t own = 0;
  for (const auto& c : classes)
    if (!c.shapes.empty()) {
      ++own;
      EXPECT_EQ(c.shapes.size(), 1u) << c.name;
      EXPECT_EQ(c.name, "shape-" + c.shapes.front()->name);
      EXPECT_FALSE(c.current.empty()) << c.name;  // starts from a configured class's params
    }
  EXPECT_EQ(own, shapes.size());
}

// A shape's own class leaves out a dim that the entry point of some case it takes cannot see
// (task/entry_view.hpp): with `F == 21`, Wan's [B, C] cases (F passed as 1 by the port) would
// fall to another class. A class that takes only per-frame cases keeps F.
TEST(TuneClasses, AShapesOwnClassNamesOnlyTheDimsItsCasesEntrySees) {
  const task::TaskSpec spec = task::load_task(kRoot, "scale_shift");
  const task::ShapeSpec* wan = nullptr;
  for (const auto& s : spec.shapes)
    if (s.name == "wan13b-480p") wan = &s;
  ASSERT_NE(wan, nullptr);
  const auto all = make_classes(spec, {wan}, ClassMode::shape);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().name, "shape-wan13b-480p");
  EXPECT_EQ(all.front().when, "B == 1 && C == 1536 && L == 32760");
  const auto frames = make_classes(spec, {wan}, ClassMode::shape, "layout == 'bf1c'");
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.front().when, "(B == 1 && C == 1536 && F == 21 && L == 32760) && (layout == 'bf1c')");
}

}  // namespace
}  // namespace ako::search
