// expand_cases over the frozen rmsnorm spec (in a scratch root, with and without a config).
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "task/cases.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using nlohmann::json;
using testing::ScratchRoot;
using Kind = model::Arg::Kind;

using testing::find_case;

class CasesTest : public ::testing::Test {
 protected:
  ScratchRoot root;
  TaskSpec spec_without_config() { return root.parse(testing::snapshot_task_doc()); }
  TaskSpec spec_with_config() {
    root.write_config(testing::fixture_config_doc());
    return root.parse(testing::snapshot_task_doc());
  }
};

TEST_F(CasesTest, FortyCompareCasesInShapeDtypeFlagOrder) {
  TaskSpec spec = spec_without_config();
  auto cases = expand_cases(spec, {}, {}, false);
  ASSERT_EQ(cases.size(), 40u);  // 10 shapes x 2 dtypes x weight on/off
  EXPECT_EQ(cases[0].label(), "text-512 bf16 weight");
  EXPECT_EQ(cases[1].label(), "text-512 bf16 noweight");
  EXPECT_EQ(cases[2].label(), "text-512 fp16 weight");
  EXPECT_EQ(cases[3].label(), "text-512 fp16 noweight");
  EXPECT_EQ(cases[4].label(), "flux1-single bf16 weight");
  EXPECT_EQ(cases[39].label(), "qknorm-flux fp16 noweight");
  for (const auto& c : cases) {
    EXPECT_EQ(c.kind, "compare");
    EXPECT_TRUE(c.solution.has_value()) << c.label();
    EXPECT_EQ(c.config_class, "default");
  }
}

TEST_F(CasesTest, CheckCasesFollowWithoutASolution) {
  TaskSpec spec = spec_without_config();
  auto cases = expand_cases(spec, {}, {}, true);
  ASSERT_EQ(cases.size(), 40u + 6u * 2u * 2u);
  const Case& c = cases[40];
  EXPECT_EQ(c.kind, "reference_check");
  EXPECT_EQ(c.label(), "check-1x128 bf16 weight");
  for (size_t i = 40; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].kind, "reference_check");
    EXPECT_FALSE(cases[i].solution.has_value());
    EXPECT_TRUE(cases[i].params.empty());
    EXPECT_EQ(cases[i].config_class, "");
  }
  // cols = 100 is not a multiple of VEC: constraints bind the solution only.
  const Case& odd = find_case(cases, "check-3x100 fp16 noweight");
  EXPECT_EQ(odd.reference.grid, (std::array<uint32_t, 3>{3, 1, 1}));
  EXPECT_EQ(odd.reference.name_expression, "rmsnorm_reference<__half, false>");
}

TEST_F(CasesTest, BuffersArgsScalarsAndBytes) {
  TaskSpec spec = spec_without_config();
  auto cases = expand_cases(spec, {}, {}, false);
  const Case& c = find_case(cases, "flux1-single bf16 weight");
  ASSERT_EQ(c.buffers.size(), 3u);
  EXPECT_EQ(c.buffers[0].name, "x");
  EXPECT_EQ(c.buffers[0].count, 4608u * 3072u);
  EXPECT_EQ(c.buffers[1].count, 3072u);
  EXPECT_TRUE(c.buffers[1].present);
  EXPECT_EQ(c.buffers[1].role, model::Role::in);
  EXPECT_DOUBLE_EQ(c.buffers[1].init.a, 1.0);
  EXPECT_EQ(c.buffers[2].role, model::Role::out);
  EXPECT_EQ(c.buffers[2].dtype, DType::bf16);
  EXPECT_DOUBLE_EQ(c.bytes, (4608.0 * 3072 * 2 + 3072) * 2);
  EXPECT_DOUBLE_EQ(c.elements, 4608.0 * 3072);  // the output, never the inputs
  EXPECT_DOUBLE_EQ(c.scalars.at("eps"), 1e-6);
  EXPECT_DOUBLE_EQ(c.scalars.at("rows"), 4608);
  EXPECT_DOUBLE_EQ(c.buffers[2].tolerance.atol, 1e-2);

  // args: out, x, weight, rows, cols, eps
  const auto& args = c.solution->args;
  ASSERT_EQ(args.size(), 6u);
  EXPECT_EQ(args[0].kind, Kind::buffer);
  EXPECT_EQ(args[0].buffer, 2);
  EXPECT_EQ(args[1].kind, Kind::buffer);
  EXPECT_EQ(args[1].buffer, 0);
  EXPECT_EQ(args[2].kind, Kind::buffer);
  EXPECT_EQ(args[2].buffer, 1);
  EXPECT_EQ(args[3].kind, Kind::i32);
  EXPECT_EQ(args[3].i, 4608);
  EXPECT_EQ(args[4].kind, Kind::i32);
  EXPECT_EQ(args[4].i, 3072);
  EXPECT_EQ(args[5].kind, Kind::f32);
  EXPECT_FLOAT_EQ(static_cast<float>(args[5].f), 1e-6f);
  EXPECT_EQ(c.reference.args.size(), 6u);
}

TEST_F(CasesTest, AbsentWeightIsANullArgAndMovesNoBytes) {
  TaskSpec spec = spec_without_config();
  auto cases = expand_cases(spec, {}, {}, false);
  const Case& c = find_case(cases, "flux1-single fp16 noweight");
  EXPECT_FALSE(c.buffers[1].present);
  EXPECT_EQ(c.solution->args[2].kind, Kind::null);
  EXPECT_EQ(c.reference.args[2].kind, Kind::null);
  EXPECT_EQ(c.flags.at("weight"), false);
  EXPECT_DOUBLE_EQ(c.bytes, 4608.0 * 3072 * 2 * 2);
}

TEST_F(CasesTest, NameExpressionsAndGeometryFromDefaults) {
  TaskSpec spec = spec_without_config();
  auto cases = expand_cases(spec, {}, {}, false);
  const Case& c = find_case(cases, "flux1-single bf16 weight");
  EXPECT_EQ(c.params, (std::map<std::string, int64_t>{{"BLOCK", 32}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}}));
  EXPECT_EQ(c.solution->name_expression, "rmsnorm_kernel<__nv_bfloat16, true, 32, 8, 1>");
  EXPECT_EQ(c.reference.name_expression, "rmsnorm_reference<__nv_bfloat16, true>");
  EXPECT_EQ(c.solution->grid, (std::array<uint32_t, 3>{4608, 1, 1}));
  EXPECT_EQ(c.solution->block, (std::array<uint32_t, 3>{32, 1, 1}));
  EXPECT_EQ(c.reference.block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(c.solution->shared_bytes, 0u);
  EXPECT_TRUE(c.solution->file.is_absolute());
  EXPECT_EQ(c.solution->file, root.path() / "solution/rmsnorm/rmsnorm.cuh");
  EXPECT_EQ(c.reference.file, root.path() / "input/rmsnorm/rmsnorm.cuh");
}

TEST_F(CasesTest, ConfigClassesSelectParamsPerCase) {
  TaskSpec spec = spec_with_config();
  auto cases = expand_cases(spec, {}, {}, false);
  const Case& qk = find_case(cases, "qknorm-flux bf16 weight");
  EXPECT_EQ(qk.config_class, "qk-head");
  EXPECT_EQ(qk.solution->grid, (std::array<uint32_t, 3>{110592 / 8, 1, 1}));
  EXPECT_EQ(qk.solution->block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(qk.solution->name_expression, "rmsnorm_kernel<__nv_bfloat16, true, 128, 8, 8>");

  const Case& wide = find_case(cases, "flux2-single fp16 weight");
  EXPECT_EQ(wide.config_class, "wide");
  EXPECT_EQ(wide.params, (std::map<std::string, int64_t>{{"BLOCK", 1024}, {"VEC", 8}, {"ROWS_PER_BLOCK", 1}}));
  // The flag takes part in `when`: without a weight the same shape falls through to "rest".
  const Case& rest = find_case(cases, "flux2-single fp16 noweight");
  EXPECT_EQ(rest.config_class, "rest");
  EXPECT_EQ(rest.solution->name_expression, "rmsnorm_kernel<__half, false, 256, 4, 1>");
}

TEST_F(CasesTest, FirstMatchingClassWinsAndNoMatchMeansDefault) {
  json config = testing::fixture_config_doc();
  config["classes"].erase(2);  // drop the catch-all "rest"
  root.write_config(config);
  TaskSpec spec = root.parse(testing::snapshot_task_doc());
  auto cases = expand_cases(spec, {}, {}, false);
  EXPECT_EQ(find_case(cases, "text-512 bf16 weight").config_class, "default");
  EXPECT_EQ(find_case(cases, "text-512 bf16 weight").params.at("BLOCK"), 32);
  EXPECT_EQ(find_case(cases, "wan14b-480p bf16 weight").config_class, "wide");
}

TEST_F(CasesTest, FiltersSelectShapesAndDtypes) {
  TaskSpec spec = spec_without_config();
  auto cases = expand_cases(spec, {{"qknorm-flux", "text-512"}, {DType::fp16}}, {}, true);
  ASSERT_EQ(cases.size(), 2u * 2u + 6u * 2u);  // checks keep every check shape, in fp16 only
  EXPECT_EQ(cases[0].label(), "text-512 fp16 weight");  // spec order, not filter order
  EXPECT_EQ(cases[2].label(), "qknorm-flux fp16 weight");
  for (const auto& c : cases) EXPECT_EQ(c.dtype, DType::fp16);
}

TEST_F(CasesTest, UnknownFilterEntriesListTheKnownOnes) {
  TaskSpec spec = spec_without_config();
  try {
    expand_cases(spec, {{"flux3"}, {}}, {}, false);
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no shape 'flux3'"), std::string::npos) << m;
    EXPECT_NE(m.find("text-512, flux1-single, flux2-single"), std::string::npos) << m;
  }
  try {
    expand_cases(spec, {{}, {DType::fp32}}, {}, false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not run in fp32; its dtypes: bf16, fp16"), std::string::npos) << e.what();
  }
}

TEST_F(CasesTest, OverridesReplaceConfigValues) {
  TaskSpec spec = spec_with_config();
  auto cases = expand_cases(spec, {}, {{"BLOCK", 512}}, false);
  for (const auto& c : cases) EXPECT_EQ(c.params.at("BLOCK"), 512) << c.label();
  const Case& qk = find_case(cases, "qknorm-flux bf16 weight");
  EXPECT_EQ(qk.params.at("ROWS_PER_BLOCK"), 8);  // the class's other params stay
  EXPECT_EQ(qk.solution->block, (std::array<uint32_t, 3>{512, 1, 1}));
}

TEST_F(CasesTest, BadOverridesAreSpecErrors) {
  TaskSpec spec = spec_without_config();
  try {
    expand_cases(spec, {}, {{"WARPS", 4}}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field, "solution.params");
    EXPECT_NE(std::string(e.what()).find("override WARPS=4: unknown parameter; expected one of BLOCK, ROWS_PER_BLOCK, VEC"),
              std::string::npos) << e.what();
  }
  try {
    expand_cases(spec, {}, {{"VEC", 3}}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field, "solution.params.VEC");
    EXPECT_NE(std::string(e.what()).find("override VEC=3: expected one of 8, 4, 2, 1"), std::string::npos) << e.what();
  }
}

TEST_F(CasesTest, ViolatedConstraintNamesConstraintCaseAndParams) {
  json doc = testing::snapshot_task_doc();
  doc["shapes"][0]["cols"] = 3076;  // not a multiple of VEC = 8
  TaskSpec spec = root.parse(doc);
  try {
    expand_cases(spec, {}, {}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.file, root.task_file().string());
    EXPECT_EQ(e.field, "solution.constraints[2]");
    EXPECT_NE(m.find("constraint \"cols % VEC == 0\" does not hold for case \"text-512 bf16 weight\""), std::string::npos) << m;
    EXPECT_NE(m.find("BLOCK=32 ROWS_PER_BLOCK=1 VEC=8"), std::string::npos) << m;
    EXPECT_NE(m.find("first allowed values"), std::string::npos) << m;
  }
  // A smaller vector width satisfies it.
  EXPECT_NO_THROW(expand_cases(spec, {}, {{"VEC", 4}}, false));
}

TEST_F(CasesTest, ViolatedConstraintFromAConfigClassNamesTheClass) {
  json config = testing::fixture_config_doc();
  // 64 threads for 32 rows satisfies the spec's own constraints (64 % 32 == 0, 64/32 = 2 is
  // a power of two) but not the one added below.
  config["classes"][0]["params"]["ROWS_PER_BLOCK"] = 32;
  config["classes"][0]["params"]["BLOCK"] = 64;
  root.write_config(config);
  json doc = testing::snapshot_task_doc();
  doc["solution"]["constraints"].push_back("BLOCK / ROWS_PER_BLOCK >= 32");  // a warp per row
  TaskSpec spec = root.parse(doc);
  try {
    expand_cases(spec, {{"qknorm-flux"}, {}}, {}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.field, "solution.constraints[3]");
    EXPECT_NE(m.find("\"qknorm-flux bf16 weight\""), std::string::npos) << m;
    EXPECT_NE(m.find("config class \"qk-head\""), std::string::npos) << m;
  }
}

TEST_F(CasesTest, LaunchLimitsAreEnforced) {
  json doc = testing::snapshot_task_doc();
  doc["reference"]["block"] = {"0"};
  TaskSpec spec = root.parse(doc);
  try {
    expand_cases(spec, {{"text-512"}, {}}, {}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field, "reference.block[0]");
    EXPECT_NE(std::string(e.what()).find("\"0\" = 0; expected block x from 1 to 1024"), std::string::npos) << e.what();
  }

  doc = testing::snapshot_task_doc();
  doc["solution"]["block"] = {"BLOCK", "2"};
  spec = root.parse(doc);
  EXPECT_NO_THROW(expand_cases(spec, {}, {{"BLOCK", 512}}, false));
  try {
    expand_cases(spec, {}, {{"BLOCK", 1024}}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field, "solution.block");
    EXPECT_NE(std::string(e.what()).find("block has 2048 threads; expected at most 1024"), std::string::npos) << e.what();
  }

  doc = testing::snapshot_task_doc();
  doc["reference"]["grid"] = {"rows", "cols * 32"};  // 3072 * 32 > 65535
  spec = root.parse(doc);
  try {
    expand_cases(spec, {{"flux1-single"}, {}}, {}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field, "reference.grid[1]");
    EXPECT_NE(std::string(e.what()).find("expected grid y from 1 to 65535"), std::string::npos) << e.what();
  }
}

TEST_F(CasesTest, I32ScalarOutOfRangeIsASpecError) {
  json doc = testing::snapshot_task_doc();
  doc["scalars"][0]["value"] = "rows * cols * 1000";
  TaskSpec spec = root.parse(doc);
  try {
    expand_cases(spec, {{"hunyuan-720p"}, {}}, {}, false);
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field, "scalars[0].value");
    EXPECT_NE(std::string(e.what()).find("does not fit in i32; expected type i64"), std::string::npos) << e.what();
  }
  doc["scalars"][0]["type"] = "i64";
  spec = root.parse(doc);
  auto cases = expand_cases(spec, {{"hunyuan-720p"}, {}}, {}, false);
  EXPECT_EQ(cases[0].solution->args[3].kind, Kind::i64);
  EXPECT_EQ(cases[0].solution->args[3].i, int64_t{118800} * 3072 * 1000);
}

TEST_F(CasesTest, TwoFlagsGiveFourCombinationsFirstFlagSlowest) {
  json doc = testing::snapshot_task_doc();
  doc["flags"] = {"weight", "bias"};
  doc["buffers"].push_back({{"name", "bias"}, {"role", "in"}, {"shape", {"cols"}}, {"present_if", "bias"}});
  doc["solution"]["kernel"] = "k<{T}, {weight}, {bias}, {BLOCK}>";
  doc["solution"]["args"].push_back("bias");
  TaskSpec spec = root.parse(doc);
  auto cases = expand_cases(spec, {{"text-512"}, {DType::bf16}}, {}, false);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].flags, (std::map<std::string, bool>{{"weight", true}, {"bias", true}}));
  EXPECT_EQ(cases[1].flags, (std::map<std::string, bool>{{"weight", true}, {"bias", false}}));
  EXPECT_EQ(cases[2].flags, (std::map<std::string, bool>{{"weight", false}, {"bias", true}}));
  EXPECT_EQ(cases[3].flags, (std::map<std::string, bool>{{"weight", false}, {"bias", false}}));
  EXPECT_EQ(cases[1].label(), "text-512 bf16 nobias weight");
  EXPECT_EQ(cases[1].solution->name_expression, "k<__nv_bfloat16, true, false, 32>");
  EXPECT_EQ(cases[1].solution->args[6].kind, Kind::null);
  EXPECT_EQ(cases[2].solution->args[6].kind, Kind::buffer);
  EXPECT_EQ(cases[2].solution->args[6].buffer, 3);
}

}  // namespace
// The task-level `when` prunes combinations per shape (tasks/README.md, "Which combinations run").
TEST_F(CasesTest, WhenPrunesCombinationsPerShape) {
  json doc = testing::snapshot_task_doc();
  doc["when"] = "rows < 5000 || weight";  // the no-weight form only on the smaller shapes
  TaskSpec spec = root.parse(doc);
  EXPECT_EQ(spec.when, "rows < 5000 || weight");
  auto cases = expand_cases(spec, {}, {}, true);
  std::set<std::string> labels;
  for (const auto& c : cases) labels.insert(c.label());
  EXPECT_TRUE(labels.count("text-512 bf16 noweight"));
  EXPECT_TRUE(labels.count("flux1-single fp16 noweight"));
  EXPECT_TRUE(labels.count("hunyuan-720p bf16 weight"));
  EXPECT_FALSE(labels.count("hunyuan-720p bf16 noweight"));
  EXPECT_FALSE(labels.count("qwen-image fp16 noweight"));
  size_t compare = 0;
  for (const auto& c : cases) compare += c.kind == "compare";
  // rows < 5000: text-512, flux1-single, flux2-single, zimage keep both forms (4 x 2 x 2); the
  // other six shapes the weight form only (6 x 2).
  EXPECT_EQ(compare, 4u * 2 * 2 + 6u * 2);
  // Check shapes (all under 5000 rows) keep every combination.
  EXPECT_EQ(cases.size() - compare, 6u * 2 * 2);
}

TEST_F(CasesTest, WhenThatLeavesAShapeEmptyIsASpecError) {
  json doc = testing::snapshot_task_doc();
  doc["when"] = "rows < 100000";
  TaskSpec spec = root.parse(doc);
  try {
    expand_cases(spec, {}, {}, false);
    FAIL() << "expected a SpecError";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'when'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hunyuan-720p"), std::string::npos) << e.what();
  }
}

TEST_F(CasesTest, WhenIsCheckedAtLoad) {
  json doc = testing::snapshot_task_doc();
  doc["when"] = "rows < bogus";
  try {
    root.parse(doc);
    FAIL() << "expected a SpecError";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'when'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown identifier 'bogus'"), std::string::npos) << e.what();
  }
}

}  // namespace ako::task
