// The qknorm_rope task (tasks/qknorm_rope, context/qknorm_rope.md) on the CPU: the spec loads with
// SGLang's constraints holding on every shape; the cases `when` keeps are the ones intended; bytes
// count q and k twice and the weights, cache and positions once; the default config gives every
// shape 16-byte lanes; everything compiles for sm_90a without spills, the wrong candidate as a
// drop-in solution. Its GPU side: tests/gpu/qknorm_rope_test.cpp.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "../ako_cli_support.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

namespace fs = std::filesystem;
using testing::find_case;

const fs::path kRoot = AKO_SOURCE_DIR;

TaskSpec qknorm_rope() { return load_task(kRoot, "qknorm_rope"); }

// SGLang's can_use_fused_inplace_qknorm_rope: D in {64, 128, 256}, 0 < R <= D, R % (D / 32) == 0,
// NeoX with an even rotary lane count.
TEST(QknormRopeTask, EveryShapeMeetsSGLangsFusedKernelConstraints) {
  const TaskSpec spec = qknorm_rope();
  EXPECT_EQ(spec.dtypes, (std::vector<DType>{DType::bf16, DType::fp16}));
  EXPECT_EQ(spec.flags, (std::vector<std::string>{"neox"}));
  EXPECT_EQ(spec.shapes.size(), 9u);
  for (const auto* list : {&spec.shapes, &spec.check_shapes})
    for (const auto& s : *list) {
      const int64_t D = s.dims.at("D"), R = s.dims.at("R");
      EXPECT_TRUE(D == 64 || D == 128 || D == 256) << s.name;
      EXPECT_GT(R, 0) << s.name;
      EXPECT_LE(R, D) << s.name;
      EXPECT_EQ(R % (D / 32), 0) << s.name;
      const int64_t lanes = R / (D / 32);
      EXPECT_TRUE(lanes >= 2 && lanes % 2 == 0) << s.name << ": NeoX needs an even rotary lane count";
    }
}

TEST(QknormRopeTask, CasesAreTheModelsLayoutsAndEveryFormOnTheSmallShapes) {
  const TaskSpec spec = qknorm_rope();
  const auto cases = expand_cases(spec, {}, {}, true);
  int compares = 0, checks = 0;
  for (const auto& c : cases) (c.kind == "compare" ? compares : checks) += 1;
  EXPECT_EQ(compares, 5 * 2 + 4 * 2 * 4);
  EXPECT_EQ(checks, 3 * 2 * 4);
  const Case& flux = find_case(cases, "flux1 bf16 noneox pos_dtype=i64");
  EXPECT_EQ(flux.reference.name_expression, "qknorm_rope_reference<__nv_bfloat16, long long, false>");
  EXPECT_EQ(flux.solution->name_expression, "qknorm_rope_kernel<__nv_bfloat16, long long, false, 16, 8, 2, 256, 0, 0>");
  EXPECT_EQ(flux.solution->grid[0], (4608u * 48 + 31) / 32);  // 16 groups of 16 lanes x 2 heads per block
  const Case& neox = find_case(cases, "neox-r32 fp16 neox pos_dtype=i32");
  EXPECT_EQ(neox.reference.name_expression, "qknorm_rope_reference<__half, int, true>");
  EXPECT_EQ(neox.config_class, "d128");
  EXPECT_EQ(find_case(cases, "d64 bf16 noneox pos_dtype=i64").config_class, "d64");
  EXPECT_EQ(find_case(cases, "d256-r128 bf16 neox pos_dtype=i64").config_class, "d256");
  const Case& check = find_case(cases, "check-r96 bf16 neox pos_dtype=i64");
  ASSERT_TRUE(check.oracle);
  EXPECT_EQ(check.oracle->name_expression, "qknorm_rope_oracle<long long, true>");
}

TEST(QknormRopeTask, BytesCountQAndKTwiceTheRestOnce) {
  const auto cases = expand_cases(qknorm_rope(), {}, {}, false);
  const double N = 118800, H = 24, D = 128, R = 128;
  EXPECT_DOUBLE_EQ(find_case(cases, "hunyuan-720p fp16 noneox pos_dtype=i64").bytes,
                   2 * (2 * N * H * D * 2) + 2 * D * 2 + N * R * 4 + N * 8);
}

TEST(QknormRopeTask, DefaultConfigGivesEveryShapeSixteenByteLanes) {
  for (const auto& c : expand_cases(qknorm_rope(), {}, {}, false)) {
    EXPECT_EQ(c.params.at("EPL"), 8) << c.label();
    EXPECT_EQ(c.params.at("LANES") * c.params.at("EPL"), c.shape->dims.at("D")) << c.label();
  }
}

struct Row {
  std::string role, kernel;
  int regs = 0, spill = 0, stack = 0;
};
std::vector<Row> compile_rows(const std::string& out) {
  static const std::regex line(R"(^(solution|reference|oracle|baseline \w+)\s+(\S.*>)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s)");
  std::vector<Row> rows;
  std::istringstream in(out);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_search(l, m, line)) rows.push_back({m[1], m[2], std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5])});
  return rows;
}

TEST(QknormRopeTask, CompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task qknorm_rope --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  int solutions = 0;
  for (const auto& row : compile_rows(r.out)) {
    EXPECT_EQ(row.spill, 0) << row.role << " " << row.kernel;
    EXPECT_EQ(row.stack, 0) << row.role << " " << row.kernel << ": local memory";
    solutions += row.role == "solution";
  }
  EXPECT_GE(solutions, 12) << r.out;
}

TEST(QknormRopeTask, TheWrongCandidateCompilesAsADropInSolution) {
  const auto r = testsupport::run_ako("compile task qknorm_rope --arch sm_90a -j 2 --shapes flux1 --solution '" +
                                          (fs::path(AKO_TEST_DIR) / "tasks/broken/qknorm_rope_skips_weight.cuh").string() +
                                          "'",
                                      kRoot);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
}

}  // namespace
}  // namespace ako::task
