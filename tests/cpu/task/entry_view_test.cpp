// A case's dims as the engine's entry point sees them (task/entry_view.hpp), on tasks/scale_shift:
// F shapes scale and shift only where the layout is per frame (bf1c). Elsewhere the port passes
// F as 1, so ako must choose the config class, and run the solution, with F = 1 there too: a
// class written `F == 21` was timed by ako on Wan's [B, C] cases and never run by the port.
#include <gtest/gtest.h>

#include "task/cases.hpp"
#include "task/config.hpp"
#include "task/device_config.hpp"
#include "task/entry_view.hpp"
#include "task/spec.hpp"

namespace ako::task {
namespace {

const std::filesystem::path kRoot = AKO_SOURCE_DIR;

TaskSpec scale_shift() { return load_task(kRoot, "scale_shift"); }

ExprEnv wan13b(const std::string& layout) {
  return {{"B", 1}, {"L", 32760}, {"C", 1536}, {"F", 21}, {"layout", string_value(layout)},
          {"mod_dtype", string_value("fp32")}};
}

TEST(EntryView, AFrameCountNoTensorIsShapedByIsUnseenAndPassedAsOne) {
  const TaskSpec spec = scale_shift();
  EXPECT_EQ(unseen_dims(spec, wan13b("bc")), std::vector<std::string>{"F"});
  EXPECT_EQ(unseen_dims(spec, wan13b("scalar")), std::vector<std::string>{"F"});
  EXPECT_TRUE(unseen_dims(spec, wan13b("bf1c")).empty());
  EXPECT_EQ(as_entry_sees(spec, wan13b("bc")).at("F"), 1);
  EXPECT_EQ(as_entry_sees(spec, wan13b("bf1c")).at("F"), 21);
  EXPECT_EQ(as_entry_sees(spec, wan13b("bc")).at("L"), 32760);  // x's extent: always seen
}

TEST(EntryView, EntryTensorsAreTheSolutionsBufferArguments) {
  const TaskSpec spec = scale_shift();
  std::vector<std::string> names;
  for (const BufferSpec* b : entry_tensors(spec)) names.push_back(b->name);
  EXPECT_EQ(names, (std::vector<std::string>{"y", "x", "scale", "shift"}));
}

// The class and the solution's arguments follow the entry's view; the reference keeps the shape's F.
TEST(EntryView, CasesChooseTheClassAndPassTheSolutionTheDimsTheEntrySees) {
  TaskSpec spec = scale_shift();
  ConfigClass frames;
  frames.name = "frames-21";
  frames.when = "F == 21";
  frames.params = spec.config_classes.back().params;
  ConfigClass rest = spec.config_classes.back();
  rest.name = "rest";
  rest.when = "";
  spec.config_classes = {frames, rest};
  CaseFilter only;
  only.shapes = {"wan13b-480p"};
  int seen = 0;
  for (const Case& c : expand_cases(spec, only, {}, false)) {
    const std::string layout = std::get<std::string>(c.axes.at("layout"));
    ASSERT_TRUE(c.solution.has_value());
    const int64_t solution_f = c.solution->args.back().i, reference_f = c.reference.args.back().i;
    EXPECT_EQ(reference_f, 21) << c.label();
    if (layout == "bf1c") {
      EXPECT_EQ(c.config_class, "frames-21") << c.label();
      EXPECT_EQ(solution_f, 21) << c.label();
    } else {
      EXPECT_EQ(c.config_class, "rest") << c.label();
      EXPECT_EQ(solution_f, 1) << c.label();
    }
    ++seen;
  }
  EXPECT_GT(seen, 0);
}

// The committed configs name no dim a case's entry cannot see where it would change the case's
// class: such a class (`F == 21` on the [B, C] cases) silently serves nobody there, in ako as in
// the port. Every task of the repository, every device file, every case.
TEST(EntryView, NoCommittedConfigClassHingesOnADimTheCaseCannotShow) {
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRoot / "tasks")) {
    if (!std::filesystem::exists(entry.path() / "task.json")) continue;
    TaskSpec spec = load_task(kRoot, entry.path().filename().string());
    std::vector<std::string> devices = device_config_entries(spec);
    devices.push_back("default");
    for (const auto& device : devices) {
      if (!find_device_config(spec, device)) continue;
      use_device_config(spec, device, kDeviceFromOption);
      for (const auto& shape : spec.shapes)
        for (const auto& v : shape_variant_cases(spec, shape)) {
          ExprEnv own = v.env;  // the entry's view, and the dtype
          for (const auto& [dim, value] : shape.dims) own[dim] = value;
          const int as_seen = first_matching_class(spec.config_classes, v.env);
          const int as_shaped = first_matching_class(spec.config_classes, own);
          EXPECT_EQ(as_seen, as_shaped) << spec.name << " [" << device << "] " << v.labels.front() << ": the entry's view takes "
                                        << (as_seen >= 0 ? spec.config_classes[as_seen].name : "no class")
                                        << ", the shape's dims "
                                        << (as_shaped >= 0 ? spec.config_classes[as_shaped].name : "no class");
          ++checked;
        }
    }
  }
  EXPECT_GT(checked, 1000u);
}

}  // namespace
}  // namespace ako::task
