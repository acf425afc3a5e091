// The rope task (tasks/rope, context/rope.md) on the CPU: the spec loads with its dims, pair
// flag, position-dtype axis and tolerances; the cases `when` keeps are the ones intended, with
// positions as i64 or i32 (`{T_pos}` int / long long) and bytes counting q and k twice, the
// cache and the positions once; the default config picks 16-byte chunks where R allows; FlashInfer's
// two kernels are launched as its host launcher would on the H200, each where it applies;
// everything compiles for sm_90a without spills, with the kernel the launcher's threshold
// assumes at its register count, and the deliberately wrong candidates compile as drop-in
// solutions. Its GPU side: tests/gpu/rope_test.cpp.
#include <gtest/gtest.h>

#include <map>
#include <set>

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
using Kind = model::Arg::Kind;

const fs::path kRoot = AKO_SOURCE_DIR;

TaskSpec rope() { return load_task(kRoot, "rope"); }

const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

TEST(RopeTask, SpecLoadsWithItsDimsFlagAxisAndTolerances) {
  const TaskSpec spec = rope();
  EXPECT_EQ(spec.dims, (std::vector<std::string>{"N", "H", "D", "R", "P"}));
  EXPECT_EQ(spec.dtypes, (std::vector<DType>{DType::bf16, DType::fp16}));
  EXPECT_EQ(spec.flags, (std::vector<std::string>{"neox"}));
  ASSERT_EQ(spec.axes.size(), 1u);
  EXPECT_EQ(spec.axes[0].name, "pos_dtype");
  EXPECT_EQ(spec.axes[0].strings, (std::vector<std::string>{"i64", "i32"}));
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::bf16).atol, 1e-2);
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp16).rtol, 1e-2);
  EXPECT_EQ(spec.shapes.size(), 12u);
  for (const auto& s : spec.shapes) {
    EXPECT_FALSE(s.source.empty()) << s.name;
    EXPECT_LE(s.dims.at("R"), s.dims.at("D")) << s.name;
    EXPECT_EQ(s.dims.at("R") % 2, 0) << s.name;
  }
}

// The large shapes run as the models call them (i64 positions; interleaved, LTX-2 NeoX), the
// small ones every pair layout and position type.
TEST(RopeTask, CasesAreTheModelsLayoutsAndEveryFormOnTheSmallShapes) {
  const TaskSpec spec = rope();
  const auto cases = expand_cases(spec, {}, {}, true);
  std::map<std::string, std::set<std::string>> forms;  // shape -> "neox|pos_dtype"
  int compares = 0, checks = 0;
  for (const auto& c : cases) {
    (c.kind == "compare" ? compares : checks) += 1;
    if (c.kind == "compare")
      forms[c.shape->name].insert(std::string(c.flags.at("neox") ? "neox" : "noneox") + "|" +
                                  std::get<std::string>(c.axes.at("pos_dtype")));
  }
  EXPECT_EQ(compares, 8 * 2 + 4 * 2 * 4);
  EXPECT_EQ(checks, 4 * 2 * 4);
  for (const char* s : {"flux1", "zimage", "qwen-image", "ltx-video", "wan13b-480p", "wan14b-480p", "hunyuan-720p"})
    EXPECT_EQ(forms[s], (std::set<std::string>{"noneox|i64"})) << s;
  EXPECT_EQ(forms["ltx2-video"], (std::set<std::string>{"neox|i64"}));
  for (const char* s : {"partial-r64", "partial-r40", "odd-r36-d96", "d256"})
    EXPECT_EQ(forms[s].size(), 4u) << s;

  const Case& flux = find_case(cases, "flux1 bf16 noneox pos_dtype=i64");
  EXPECT_EQ(flux.reference.name_expression, "rope_reference<__nv_bfloat16, long long, false>");
  EXPECT_EQ(flux.solution->name_expression, "rope_kernel<__nv_bfloat16, long long, false, 8, 4, 256, 0>");
  ASSERT_EQ(flux.solution->args.size(), 10u);  // the reference's arguments
  EXPECT_EQ(flux.solution->args[5].i, 24);     // H
  EXPECT_EQ(flux.solution->args[7].i, 128);    // R
  EXPECT_EQ(flux.solution->grid[0], (4608u * 2 * 6 * 16 + 255) / 256);  // N x q/k x 24 / 4 head groups x R / VEC chunks
  const Case& i32 = find_case(cases, "partial-r40 fp16 neox pos_dtype=i32");
  EXPECT_EQ(i32.reference.name_expression, "rope_reference<__half, int, true>");
  EXPECT_EQ(buffer(i32, "pos").dtype, DType::i32);
  EXPECT_EQ(buffer(find_case(cases, "partial-r40 fp16 neox pos_dtype=i64"), "pos").dtype, DType::i64);
  const Case& check = find_case(cases, "check-d30 bf16 neox pos_dtype=i32");
  EXPECT_EQ(check.kind, "reference_check");
  ASSERT_TRUE(check.oracle);
  EXPECT_EQ(check.oracle->name_expression, "rope_oracle<int, true>");
  EXPECT_EQ(check.oracle->grid[0], 3u);
}

TEST(RopeTask, BytesCountQAndKTwiceTheCacheAndPositionsOnce) {
  const TaskSpec spec = rope();
  const auto cases = expand_cases(spec, {}, {}, false);
  const double N = 118800, H = 24, D = 128, R = 128;
  EXPECT_DOUBLE_EQ(find_case(cases, "hunyuan-720p bf16 noneox pos_dtype=i64").bytes,
                   2 * (2 * N * H * D * 2) + N * R * 4 + N * 8);
  const double n = 333, h = 5, d = 128, r = 64, p = 1000;
  EXPECT_DOUBLE_EQ(find_case(cases, "partial-r64 fp16 neox pos_dtype=i32").bytes,
                   2 * (2 * n * h * d * 2) + p * r * 4 + n * 4);
  // compare_torch.py sizes the bar by the activation, q [N, H, D]: not N H D R P (every dim)
  EXPECT_DOUBLE_EQ(find_case(cases, "hunyuan-720p bf16 noneox pos_dtype=i64").elements, N * H * D);
  EXPECT_DOUBLE_EQ(find_case(cases, "partial-r64 fp16 neox pos_dtype=i32").elements, n * h * d);
}

// 16-byte chunks (VEC 8) wherever D and the rotated span allow; 4 heads per thread, 2 in NeoX
// (each head two chunks); one where H is too small to share a chunk's cache values.
TEST(RopeTask, DefaultConfigTakesSixteenByteChunksWhereRAllows) {
  const TaskSpec spec = rope();
  const auto cases = expand_cases(spec, {}, {}, false);
  const std::map<std::string, std::string> expected = {
      {"flux1 bf16 noneox pos_dtype=i64", "vec8"},           {"ltx-video fp16 noneox pos_dtype=i64", "vec8"},
      {"ltx2-video bf16 neox pos_dtype=i64", "vec8-neox"},   {"hunyuan-720p bf16 noneox pos_dtype=i64", "vec8"},
      {"partial-r64 bf16 neox pos_dtype=i64", "vec8-neox"},  {"partial-r64 bf16 noneox pos_dtype=i64", "vec8"},
      {"partial-r40 bf16 neox pos_dtype=i64", "vec4-neox"},  {"partial-r40 bf16 noneox pos_dtype=i64", "few-heads-vec8"},
      {"odd-r36-d96 bf16 noneox pos_dtype=i32", "vec4"},     {"odd-r36-d96 bf16 neox pos_dtype=i32", "vec2-neox"},
      {"d256 fp16 noneox pos_dtype=i64", "few-heads-vec8"},  {"d256 fp16 neox pos_dtype=i64", "vec8-neox"}};
  for (const auto& [label, cls] : expected) EXPECT_EQ(find_case(cases, label).config_class, cls) << label;
  for (const auto& c : cases)
    if (c.shape->dims.at("N") >= 1000) {
      EXPECT_EQ(c.params.at("VEC"), 8) << c.label();
      EXPECT_EQ(c.params.at("HPT"), c.flags.at("neox") ? 2 : 4) << c.label();
    }
}

// A scratch root with the task's spec and config and placeholder kernels, with or without
// FlashInfer's header.
struct Scratch {
  fs::path root;
  explicit Scratch(bool flashinfer) {
    std::string tmpl = (fs::temp_directory_path() / "ako-rope-task-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    root = tmpl;
    for (const char* f : {"input/rope/rope.cuh", "input/rope/oracle.cuh", "input/rope/peers/flashinfer_rope.cuh",
                          "solution/rope/rope.cuh"})
      testing::write_file(root / f, "// placeholder for the task-spec tests\n");
    if (flashinfer)
      testing::write_file(root / "peers/flashinfer-python-0.7.2/include/flashinfer/pos_enc.cuh", "// placeholder\n");
    fs::create_directories(root / "solution/rope/configs");
    fs::copy_file(kRoot / "solution/rope/configs/default.json", root / "solution/rope/configs/default.json");
  }
  ~Scratch() { fs::remove_all(root); }
  TaskSpec spec() const { return parse_task(testing::read_json(kRoot / "tasks/rope/task.json"), root / "tasks/rope/task.json", root); }
};

// FlashInfer's BatchQKApplyRotaryPosIdsCosSinCache: vec = max(16 / sizeof(T), D / 32), bdx = D /
// vec, bdy = max(128, bdx) / bdx; the token-parallel kernel when ceil(N / bdy) >= 2112 (the
// H200's occupancy x SMs), else grid.y over Hq + Hk heads; in place: q_rope = q, k_rope = k.
TEST(RopeTask, FlashInferIsLaunchedAsItsHostLauncherWould) {
  Scratch scratch(true);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  auto baseline = [&](const std::string& label, const std::string& name) -> const BaselineInstance& {
    for (const auto& b : find_case(cases, label).baselines)
      if (b.name == name) return b;
    throw std::runtime_error("no baseline " + name);
  };
  const auto& heads = baseline("flux1 bf16 noneox pos_dtype=i64", "flashinfer_heads");
  ASSERT_TRUE(heads.kernel) << heads.absent_reason;
  EXPECT_EQ(heads.kernel->name_expression,
            "flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel<1, 128, 8, 16, __nv_bfloat16, long long>");
  EXPECT_EQ(heads.kernel->grid, (std::array<uint32_t, 3>{576, 48, 1}));
  EXPECT_EQ(heads.kernel->block, (std::array<uint32_t, 3>{16, 8, 1}));
  const auto& args = heads.kernel->args;
  ASSERT_EQ(args.size(), 18u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(args[i].kind, Kind::buffer) << i;
  EXPECT_EQ(args[0].buffer, args[2].buffer);  // q_rope = q: in place
  EXPECT_EQ(args[1].buffer, args[3].buffer);  // k_rope = k
  EXPECT_EQ(args[9].i, 128);                  // rotary_dim
  EXPECT_EQ(args[10].i, 24 * 128);            // q_stride_n
  EXPECT_EQ(args[11].i, 128);                 // q_stride_h
  EXPECT_FALSE(baseline("flux1 bf16 noneox pos_dtype=i64", "flashinfer").kernel);

  const auto& wan = baseline("wan14b-480p fp16 noneox pos_dtype=i64", "flashinfer");
  ASSERT_TRUE(wan.kernel) << wan.absent_reason;
  EXPECT_EQ(wan.kernel->name_expression,
            "flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<1, 128, 8, 16, __half, long long>");
  EXPECT_EQ(wan.kernel->grid, (std::array<uint32_t, 3>{4095, 1, 1}));
  EXPECT_FALSE(baseline("wan14b-480p fp16 noneox pos_dtype=i64", "flashinfer_heads").kernel);

  const auto& ltx = baseline("ltx-video bf16 noneox pos_dtype=i64", "flashinfer_heads");  // D = 64: bdx 8, bdy 16
  ASSERT_TRUE(ltx.kernel);
  EXPECT_EQ(ltx.kernel->block, (std::array<uint32_t, 3>{8, 16, 1}));
  EXPECT_EQ(ltx.kernel->grid, (std::array<uint32_t, 3>{384, 64, 1}));
  const auto& neox = baseline("ltx2-video bf16 neox pos_dtype=i64", "flashinfer_heads");
  ASSERT_TRUE(neox.kernel);
  EXPECT_NE(neox.kernel->name_expression.find("HeadParallelismKernel<0, 128, 8, 16, __nv_bfloat16, long long>"), std::string::npos)
      << neox.kernel->name_expression;
  const auto& i32 = baseline("d256 bf16 noneox pos_dtype=i32", "flashinfer_heads");  // D = 256: bdx 32, bdy 4
  ASSERT_TRUE(i32.kernel);
  EXPECT_EQ(i32.kernel->name_expression,
            "flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel<1, 256, 8, 32, __nv_bfloat16, int>");
  EXPECT_EQ(i32.kernel->block, (std::array<uint32_t, 3>{32, 4, 1}));
  for (const char* name : {"flashinfer", "flashinfer_heads"})
    EXPECT_FALSE(baseline("odd-r36-d96 bf16 noneox pos_dtype=i64", name).kernel) << name << ": D = 96 is RopeQuantize's";
}

TEST(RopeTask, FlashInferNotInstalledIsSaidPerCase) {
  Scratch scratch(false);
  const auto cases = expand_cases(scratch.spec(), {}, {}, false);
  const auto& b = find_case(cases, "hunyuan-720p fp16 noneox pos_dtype=i64").baselines[0];
  EXPECT_FALSE(b.kernel);
  EXPECT_NE(b.absent_reason.find("not installed: peers/flashinfer-python-0.7.2/include/flashinfer/pos_enc.cuh is missing"),
            std::string::npos)
      << b.absent_reason;
}

using testing::compile_rows;

TEST(RopeTask, CompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task rope --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  const auto rows = compile_rows(r.out);
  int solutions = 0, token_parallel = 0, head_parallel = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.spill, 0) << row.role << " " << row.kernel;
    EXPECT_EQ(row.stack, 0) << row.role << " " << row.kernel << ": local memory";
    solutions += row.role == "solution";
    // Both baselines are one program (same file and options): told apart by the kernel.
    if (row.kernel.starts_with("flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheKernel<")) {
      ++token_parallel;
      // The launcher's threshold in the task (2112 = 16 blocks of 128 threads x 132 SMs)
      // holds while the kernel fits 16 such blocks per SM: at most 32 registers.
      EXPECT_LE(row.regs, 32) << row.kernel << ": the 2112 in tasks/rope/task.json's when is stale";
    }
    head_parallel += row.kernel.starts_with("flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel<");
  }
  EXPECT_GE(solutions, 20) << r.out;
  if (fs::exists(kRoot / "peers/flashinfer-python-0.7.2/include/flashinfer/pos_enc.cuh")) {
    EXPECT_GT(token_parallel, 0) << r.out;
    EXPECT_GT(head_parallel, 0) << r.out;
  } else {
    EXPECT_TRUE(testsupport::has(r.out, "baseline flashinfer: not installed")) << r.out;
  }
}

TEST(RopeTask, TheWrongCandidatesCompileAsDropInSolutions) {
  // tests/gpu/rope_test.cpp shows them incorrect; here: they build in the solution's place.
  for (const char* broken : {"rope_wrong_pairing.cuh", "rope_rotates_whole_head.cuh"}) {
    const auto r = testsupport::run_ako("compile task rope --arch sm_90a -j 2 --shapes partial-r64 --solution '" +
                                            (fs::path(AKO_TEST_DIR) / "tasks/broken" / broken).string() + "'",
                                        kRoot);
    EXPECT_EQ(r.status, 0) << broken << "\n" << r.out;
    EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << broken << "\n" << r.out;
  }
}

}  // namespace
}  // namespace ako::task
