// The qknorm_rope task (tasks/qknorm_rope, context/qknorm_rope.md) on the CPU: the spec loads with
// SGLang's constraints holding on every shape; the cases `when` keeps are the ones intended; bytes
// count q and k twice and the weights, cache and positions once; the default config gives every
// shape 16-byte lanes; everything compiles for sm_90a without spills, the wrong candidate as a
// drop-in solution. Its GPU side: tests/gpu/qknorm_rope_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>

#include "../ako_cli_support.hpp"
#include "compile_rows.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
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
  EXPECT_EQ(flux.solution->name_expression, "qknorm_rope_kernel<__nv_bfloat16, long long, false, 16, 8, 2, 256, 0, 0, 0, 0>");
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
  const TaskSpec spec = qknorm_rope();  // the cases point into it
  const auto cases = expand_cases(spec, {}, {}, false);
  const double N = 118800, H = 24, D = 128, R = 128;
  const Case& c = find_case(cases, "hunyuan-720p fp16 noneox pos_dtype=i64");
  EXPECT_DOUBLE_EQ(c.bytes, 2 * (2 * N * H * D * 2) + 2 * D * 2 + N * R * 4 + N * 8);
  // The activation the bar is sized by: q [N, H, D]; the cache's rows P are no part of it.
  EXPECT_DOUBLE_EQ(c.elements, N * H * D);
}

TEST(QknormRopeTask, DefaultConfigGivesEveryShapeSixteenByteLanes) {
  const TaskSpec spec = qknorm_rope();  // the cases point into it
  for (const auto& c : expand_cases(spec, {}, {}, false)) {
    EXPECT_EQ(c.params.at("EPL"), 8) << c.label();
    EXPECT_EQ(c.params.at("LANES") * c.params.at("EPL"), c.shape->dims.at("D")) << c.label();
  }
}

// SGLang's fused_inplace_qknorm_rope as run() launches it: the variant its kUseHalfWarp picks
// (the adapter decides by the same constant; `HALF` in task.json says which for the grid), 256
// threads, the persistent grid min(132 SMs x blocks per SM, ceil(works / 8 warps)).
TEST(QknormRopeTask, SglangIsLaunchedAsItsRunWould) {
  if (!fs::exists(kRoot / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/diffusion/qknorm_rope.cuh"))
    GTEST_SKIP() << "SGLang not fetched (scripts/fetch-sglang.sh): its baseline is `not installed`";
  const TaskSpec spec = qknorm_rope();  // the cases point into it
  const auto cases = expand_cases(spec, {}, {}, false);
  const auto sglang = [](const Case& c) -> const BaselineInstance& {
    EXPECT_EQ(c.baselines.size(), 1u);
    return c.baselines.at(0);
  };
  // flux1: half warp (D 128, interleaved), 40 registers -> 6 blocks of 256 per SM; 110592 pairs.
  const auto& flux = sglang(find_case(cases, "flux1 bf16 noneox pos_dtype=i64"));
  ASSERT_TRUE(flux.kernel) << flux.absent_reason;
  EXPECT_EQ(flux.kernel->name_expression, "sglang_qknorm_rope<128, 128, false, __nv_bfloat16, long long>");
  EXPECT_EQ(flux.kernel->block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(flux.kernel->grid[0], 132u * 6);
  EXPECT_NE(std::find(flux.options.begin(), flux.options.end(), "-std=c++20"), flux.options.end());
  // d64 NeoX: one head per warp, 2 x 3 x 77 rows on ceil(462 / 8) blocks (fewer than the SMs hold).
  const auto& d64 = sglang(find_case(cases, "d64 fp16 neox pos_dtype=i32"));
  ASSERT_TRUE(d64.kernel) << d64.absent_reason;
  EXPECT_EQ(d64.kernel->name_expression, "sglang_qknorm_rope<64, 64, true, __half, int>");
  EXPECT_EQ(d64.kernel->grid[0], 58u);
  // neox-r32 at D 128: NeoX in fp32 keeps the warp kernel: 2 x 4 x 45 rows.
  const auto& neox = sglang(find_case(cases, "neox-r32 bf16 neox pos_dtype=i64"));
  ASSERT_TRUE(neox.kernel) << neox.absent_reason;
  EXPECT_EQ(neox.kernel->grid[0], 45u);
  // SGLang's constraints hold on every shape of the task, so every case has the column.
  for (const auto& c : cases) EXPECT_TRUE(sglang(c).kernel) << c.label() << ": " << sglang(c).absent_reason;
}

// A scratch root holding the spec and placeholder kernels, with or without SGLang's file, and a
// head_dim 32 shape (the solution runs it; SGLang's kernel does not).
struct Scratch {
  fs::path root;
  explicit Scratch(bool sglang) {
    root = testsupport::copy_workspace("qknorm-rope-spec", {"tasks/qknorm_rope", "solution/qknorm_rope/configs"});
    for (const char* f : {"input/qknorm_rope/qknorm_rope.cuh", "input/qknorm_rope/oracle.cuh",
                          "input/qknorm_rope/peers/sglang_qknorm_rope.cuh", "solution/qknorm_rope/qknorm_rope.cuh"})
      testing::write_file(root / f, "// placeholder for the task-spec tests\n");
    if (sglang)
      testing::write_file(root / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/diffusion/qknorm_rope.cuh", "// placeholder\n");
    json doc = testing::read_json(root / "tasks/qknorm_rope/task.json");
    doc["shapes"].push_back({{"name", "d32"}, {"N", 3}, {"H", 2}, {"D", 32}, {"R", 32}, {"P", 3}});
    testing::write_file(root / "tasks/qknorm_rope/task.json", doc.dump(2));
    const fs::path config = root / "solution/qknorm_rope/configs/default.json";
    json cfg = testing::read_json(config);
    cfg["classes"].insert(cfg["classes"].begin(),
                          json{{"name", "d32"}, {"when", "D == 32"}, {"params", {{"LANES", 16}, {"EPL", 2}}}});
    testing::write_file(config, cfg.dump(2));
  }
  ~Scratch() { fs::remove_all(root); }
  TaskSpec spec() const { return load_task(root, "qknorm_rope"); }
};

TEST(QknormRopeTask, SglangIsNotApplicableOutsideItsConstraints) {
  Scratch scratch(true);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const auto& b = find_case(cases, "d32 bf16 neox pos_dtype=i64").baselines.at(0);
  EXPECT_FALSE(b.kernel);
  EXPECT_EQ(b.absent_reason.rfind("not applicable to this case (when: (D == 64 || D == 128 || D == 256)", 0), 0u)
      << b.absent_reason;
  EXPECT_TRUE(find_case(cases, "d64 bf16 neox pos_dtype=i64").baselines.at(0).kernel);
}

TEST(QknormRopeTask, SglangNotFetchedIsSaidPerCase) {
  Scratch scratch(false);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const auto& b = find_case(cases, "flux1 fp16 noneox pos_dtype=i64").baselines.at(0);
  EXPECT_FALSE(b.kernel);
  EXPECT_NE(b.absent_reason.find("not installed: peers/sglang-0.5.23/sglang/kernels/jit/csrc/diffusion/qknorm_rope.cuh "
                                 "is missing; run scripts/fetch-sglang.sh"),
            std::string::npos)
      << b.absent_reason;
}

using testing::compile_rows;

TEST(QknormRopeTask, CompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task qknorm_rope --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  int solutions = 0, baselines = 0;
  static const std::regex sglang_args(R"(sglang_qknorm_rope<(\d+), (\d+), (true|false),)");
  for (const auto& row : compile_rows(r.out)) {
    EXPECT_EQ(row.spill, 0) << row.role << " " << row.kernel;
    EXPECT_EQ(row.stack, 0) << row.role << " " << row.kernel << ": local memory";
    solutions += row.role == "solution";
    std::smatch m;
    if (row.role == "baseline sglang" && std::regex_search(row.kernel, m, sglang_args)) {
      ++baselines;
      // task.json's BPS: 6 blocks of 256 threads per SM for the half-warp kernel (at most 40
      // registers: 65536 / (256 x 40) = 6.4), 8 (the thread limit) for the warp kernel (32).
      const bool half = m[1] == "128" && m[3] == "false" && std::stoi(m[2]) % 8 == 0;
      EXPECT_LE(row.regs, half ? 40 : 32) << row.kernel;
      if (half) {
        EXPECT_GT(row.regs, 32) << row.kernel << ": 8 blocks per SM would fit; BPS in task.json says 6";
      }
    }
  }
  EXPECT_GE(solutions, 12) << r.out;
  if (fs::exists(kRoot / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/diffusion/qknorm_rope.cuh")) {
    // distinct kernels: the five (128, 128) shapes interleaved i64 x 2 dtypes, the four small
    // shapes' (D, R) x neox x pos_dtype x dtype
    EXPECT_EQ(baselines, 2 + 4 * 8) << r.out;
  } else {
    EXPECT_TRUE(testsupport::has(r.out, "baseline sglang: not installed")) << r.out;
  }
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
