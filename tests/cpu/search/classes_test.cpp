// Tune classes of a task whose config classes depend on an axis (tasks/scale_shift: the
// per-token layouts have classes of their own): per config class it is refused with the way
// out, per shape it tunes one class per shape starting from the first combination's params.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "search/tuner.hpp"
#include "task/spec.hpp"
#include "search_fixture.hpp"

namespace ako::search {
namespace {

const std::filesystem::path kRoot = AKO_SOURCE_DIR;

using testing::all_shapes;

TEST(TuneClasses, AxisDependentConfigClassesAreRefusedPerConfigClass) {
  const task::TaskSpec spec = task::load_task(kRoot, "scale_shift");
  try {
    make_classes(spec, all_shapes(spec), ClassMode::config);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--classes shape"), std::string::npos) << e.what();
  }
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

}  // namespace
}  // namespace ako::search
