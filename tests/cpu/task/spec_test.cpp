// The real rmsnorm spec loads, and the values parse_task fills in are the documented ones.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using testing::ScratchRoot;

TEST(RealTask, RmsnormLoadsFromTheRepository) {
  const std::filesystem::path root = AKO_SOURCE_DIR;
  TaskSpec spec = load_task(root, "rmsnorm");
  EXPECT_EQ(spec.name, "rmsnorm");
  EXPECT_EQ(spec.oracle.file, "input/rmsnorm/oracle.cuh");
  EXPECT_EQ(spec.file, root / "tasks/rmsnorm/task.json");
  EXPECT_EQ(spec.dims, (std::vector<std::string>{"rows", "cols"}));
  EXPECT_EQ(spec.dtypes, (std::vector<DType>{DType::bf16, DType::fp16}));
  EXPECT_EQ(spec.flags, (std::vector<std::string>{"weight"}));
  EXPECT_EQ(spec.shapes.size(), 10u);
  EXPECT_EQ(spec.check_shapes.size(), 6u);
  ASSERT_EQ(spec.buffers.size(), 3u);
  EXPECT_EQ(spec.buffers[1].present_if, "weight");
  EXPECT_EQ(spec.buffers[1].role, model::Role::in);
  EXPECT_DOUBLE_EQ(spec.buffers[1].init.a, 1.0);
  EXPECT_DOUBLE_EQ(spec.buffers[1].init.b, 0.25);
  // The solution's parameter space evolves with the kernel; these three are its core.
  for (const char* name : {"BLOCK", "VEC", "ROWS_PER_BLOCK"})
    EXPECT_TRUE(std::any_of(spec.solution.params.begin(), spec.solution.params.end(),
                            [&](const TunableParam& p) { return p.name == name; })) << name;
  EXPECT_GE(spec.solution.constraints.size(), 3u);
  EXPECT_EQ(spec.port.value("engine", ""), "sglang");

  // Every config file is read at load time (default.json installed), and whatever each says
  // must expand over the whole shape set without a violation (checked per device below).
  const bool default_exists = std::filesystem::exists(root / "solution/rmsnorm/configs/default.json");
  EXPECT_EQ(spec.config_present, default_exists);
  if (!default_exists) {
    EXPECT_TRUE(spec.config_classes.empty());
  }
  for (const auto& c : spec.configs) {
    TaskSpec each = spec;
    use_device_config(each, c.entry, kDeviceFromOption);
    EXPECT_EQ(expand_cases(each, {}, {}, false).size(), 40u) << c.file;
  }
  auto cases = expand_cases(spec, {}, {}, true);
  ASSERT_EQ(cases.size(), 40u + 6u * 2u * 2u);
  for (size_t i = 0; i < 40; ++i) {
    ASSERT_TRUE(cases[i].solution.has_value());
    EXPECT_EQ(cases[i].solution->name_expression.find('{'), std::string::npos) << cases[i].label();
    EXPECT_EQ(cases[i].params.size(), spec.solution.params.size()) << cases[i].label();
  }
}

TEST(RealTask, ListTasksFindsRmsnorm) {
  auto names = list_tasks(AKO_SOURCE_DIR);
  EXPECT_NE(std::find(names.begin(), names.end(), "rmsnorm"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(LoadTask, UnknownTaskNamesTheKnownOnes) {
  try {
    load_task(AKO_SOURCE_DIR, "layernorm-nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no task 'layernorm-nope'"), std::string::npos) << m;
    EXPECT_NE(m.find("rmsnorm"), std::string::npos) << m;
  }
}

TEST(LoadTask, AcceptsAPathAndReportsInvalidJson) {
  ScratchRoot root;
  testing::write_file(root.task_file(), testing::real_task_doc().dump());
  TaskSpec spec = load_task(root.path(), root.task_file().string());
  EXPECT_EQ(spec.name, "rmsnorm");
  EXPECT_FALSE(spec.config_present);  // the scratch root has no config

  testing::write_file(root.task_file(), "{\"schema\": \"ako.task/1\",");
  try {
    load_task(root.path(), root.task_file().string());
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file, root.task_file().string());
    EXPECT_EQ(e.field, "$");
    EXPECT_NE(std::string(e.what()).find("expected a valid JSON document"), std::string::npos) << e.what();
  }
}

TEST(ParseTask, DefaultsAreFilledIn) {
  ScratchRoot root;
  auto doc = testing::real_task_doc();
  doc.erase("trials");
  doc.erase("check_shapes");
  doc.erase("port");
  doc["tolerance"].erase("fp16");
  doc["dtypes"].push_back("fp32");
  doc["buffers"][0].erase("init");
  doc["buffers"][2].erase("dtype");
  doc["reference"]["grid"] = {4608};  // an integer is an expression too
  TaskSpec spec = root.parse(doc);
  EXPECT_EQ(spec.trials, 3);
  EXPECT_TRUE(spec.check_shapes.empty());
  EXPECT_TRUE(spec.port.is_object() && spec.port.empty());
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp16).atol, 1e-2);
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp16).rtol, 1e-2);
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp32).atol, 1e-5);
  EXPECT_EQ(spec.buffers[0].init.dist, "normal");
  EXPECT_DOUBLE_EQ(spec.buffers[0].init.a, 0.0);
  EXPECT_DOUBLE_EQ(spec.buffers[0].init.b, 1.0);
  EXPECT_EQ(spec.buffers[2].dtype, "$dtype");
  EXPECT_EQ(spec.reference.grid, (std::vector<std::string>{"4608"}));
  EXPECT_EQ(spec.reference.shared_bytes, "0");
  EXPECT_EQ(spec.scalars[2].type, ScalarType::f32);
}

TEST(ParseTask, UniformInitAndFixedBufferDtype) {
  ScratchRoot root;
  auto doc = testing::real_task_doc();
  doc["buffers"][0]["init"] = {{"dist", "uniform"}, {"low", -2.0}, {"high", 2.0}};
  doc["buffers"][1]["dtype"] = "fp32";
  TaskSpec spec = root.parse(doc);
  EXPECT_EQ(spec.buffers[0].init.dist, "uniform");
  EXPECT_DOUBLE_EQ(spec.buffers[0].init.a, -2.0);
  EXPECT_DOUBLE_EQ(spec.buffers[0].init.b, 2.0);
  EXPECT_EQ(spec.buffers[1].dtype, "fp32");
}

TEST(ParseConfig, ClassesAreReadAndMissingParamsFallBack) {
  ScratchRoot root;
  root.write_config(testing::fixture_config_doc());
  TaskSpec spec = root.parse(testing::snapshot_task_doc());
  ASSERT_TRUE(spec.config_present);
  EXPECT_EQ(spec.config_source, "test fixture: hand-written classes that exercise config selection");
  ASSERT_EQ(spec.config_classes.size(), 3u);
  EXPECT_EQ(spec.config_classes[0].name, "qk-head");
  EXPECT_EQ(spec.config_classes[0].when, "cols <= 256");
  EXPECT_EQ(spec.config_classes[2].when, "");
  // "wide" gives BLOCK and VEC only: ROWS_PER_BLOCK falls back to its first allowed value.
  EXPECT_EQ(spec.config_classes[1].params,
            (std::map<std::string, int64_t>{{"BLOCK", 1024}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}}));
}

}  // namespace
}  // namespace ako::task
