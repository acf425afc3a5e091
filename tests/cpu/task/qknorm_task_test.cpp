// tasks/qknorm on the CPU (context/qknorm.md): the spec loads with its dims, dtypes, form flag and
// SGLang's tolerance; cases and labels are the ones intended; q and k are views into qkv at the
// packed layout's offsets and strides, the weights [D] or [H * D] by form; bytes count q and k
// read and written and the weights once (v never); the default config's classes fit every shape;
// SGLang's fused_inplace_qknorm and FlashInfer's QKRMSNorm (per head) and RMSNorm (across heads,
// what SGLang runs for Wan) are instantiated and launched as their launchers would; every kernel
// compiles for sm_90a without spills, every config class too, and so does the broken candidate
// the GPU test runs (tests/gpu/qknorm_test.cpp); the H200 config's per-head kernels store whole
// 16-byte chunks and never divide (their PTX, as NVRTC emits it).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "../ako_cli_support.hpp"
#include "compile_rows.hpp"
#include "ptx_entries.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::find_case;

const fs::path kRoot = AKO_SOURCE_DIR;

struct Shape {
  const char* name;
  int64_t N, H, D;
};
const Shape kShapes[] = {{"flux1", 4608, 24, 128},       {"qwen-image", 6889, 24, 128},
                         {"ltx-video", 6144, 32, 64},    {"wan13b-480p", 32760, 12, 128},
                         {"wan14b-480p", 32760, 40, 128}, {"hunyuan-720p", 118800, 24, 128}};

const TaskSpec& spec() {
  static const TaskSpec s = load_task(kRoot, "qknorm");
  return s;
}

const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

TEST(QknormTask, SpecLoadsWithItsDimsDtypesFormAndTolerance) {
  const TaskSpec& s = spec();
  EXPECT_EQ(s.dims, (std::vector<std::string>{"N", "Hq", "Hk", "D"}));
  EXPECT_EQ(s.dtypes, (std::vector<DType>{DType::bf16, DType::fp16}));
  EXPECT_EQ(s.flags, (std::vector<std::string>{"across_heads"}));
  ASSERT_EQ(s.axes.size(), 1u);  // the compile-time head_dim, tied to each shape's D by `when`
  EXPECT_EQ(s.axes[0].name, "head_dim");
  EXPECT_EQ(s.axes[0].integers, (std::vector<int64_t>{64, 128, 256}));
  for (DType t : {DType::bf16, DType::fp16}) {
    EXPECT_DOUBLE_EQ(s.tolerance.at(t).atol, 1e-2);  // SGLang's test_qknorm.py
    EXPECT_DOUBLE_EQ(s.tolerance.at(t).rtol, 1e-2);
  }
  ASSERT_EQ(s.shapes.size(), std::size(kShapes));
  for (size_t i = 0; i < s.shapes.size(); ++i) {
    EXPECT_EQ(s.shapes[i].name, kShapes[i].name);
    EXPECT_EQ(s.shapes[i].dims.at("N"), kShapes[i].N) << kShapes[i].name;
    EXPECT_EQ(s.shapes[i].dims.at("Hq"), kShapes[i].H) << kShapes[i].name;
    EXPECT_EQ(s.shapes[i].dims.at("Hk"), kShapes[i].H) << kShapes[i].name;
    EXPECT_EQ(s.shapes[i].dims.at("D"), kShapes[i].D) << kShapes[i].name;
    EXPECT_FALSE(s.shapes[i].source.empty()) << kShapes[i].name;
  }
  // Check shapes cover D = 64, 128, 256 and Hq != Hk both ways.
  std::set<int64_t> ds;
  bool more_q = false, more_k = false;
  for (const auto& c : s.check_shapes) {
    ds.insert(c.dims.at("D"));
    more_q |= c.dims.at("Hq") > c.dims.at("Hk");
    more_k |= c.dims.at("Hq") < c.dims.at("Hk");
  }
  EXPECT_EQ(ds, (std::set<int64_t>{64, 128, 256}));
  EXPECT_TRUE(more_q && more_k);
}

TEST(QknormTask, CasesAreEveryShapeDtypeAndFormWithStableLabels) {
  const auto cases = expand_cases(spec(), {}, {}, true);
  int compares = 0, checks = 0;
  for (const auto& c : cases) (c.kind == "compare" ? compares : checks) += 1;
  EXPECT_EQ(compares, 6 * 2 * 2);
  EXPECT_EQ(checks, 6 * 2 * 2);
  EXPECT_EQ(cases[0].label(), "flux1 bf16 across_heads head_dim=128");
  EXPECT_EQ(cases[1].label(), "flux1 bf16 noacross_heads head_dim=128");
  const Case& head = find_case(cases, "wan14b-480p fp16 noacross_heads head_dim=128");
  EXPECT_EQ(head.reference.name_expression, "qknorm_reference<__half, 128, false>");
  EXPECT_EQ(head.reference.grid[1], 80u);  // one block per head of q and k
  // <T, head_dim, across, VEC, BLOCK, GROUP, ROWS, AGROUP, AROWS, CHUNKS>: both forms' params
  EXPECT_EQ(head.solution->name_expression, "qknorm_kernel<__half, 128, false, 8, 256, 16, 2, 128, 1, 5, 1>");
  EXPECT_EQ(head.solution->grid[0], static_cast<uint32_t>((32760 * 80 + 31) / 32));  // 16 groups x 2 rows
  const Case& across = find_case(cases, "wan14b-480p bf16 across_heads head_dim=128");
  EXPECT_EQ(across.reference.grid[1], 2u);  // one row of q, one of k
  EXPECT_EQ(across.solution->name_expression, "qknorm_kernel<__nv_bfloat16, 128, true, 8, 256, 16, 2, 128, 1, 5, 1>");
  EXPECT_EQ(across.solution->grid[0], static_cast<uint32_t>(32760 * 2 / 2));  // AGROUP 128: 2 rows per block
  const Case& check = find_case(cases, "check-5x3x1x128 bf16 noacross_heads head_dim=128");
  EXPECT_EQ(check.kind, "reference_check");
  ASSERT_TRUE(check.oracle);
  EXPECT_EQ(check.oracle->name_expression, "qknorm_oracle<128, false>");
  EXPECT_EQ(check.oracle->grid[1], 4u);
  EXPECT_EQ(check.oracle->block[0], 32u);  // one warp per row
}

TEST(QknormTask, QAndKAreViewsOfThePackedQkvAndBytesCountThemTwice) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  for (const char* label : {"hunyuan-720p bf16 noacross_heads head_dim=128", "hunyuan-720p bf16 across_heads head_dim=128"}) {
    const Case& c = find_case(cases, label);
    const bool across = std::string(label).find(" across_heads") != std::string::npos;
    const int64_t N = 118800, H = 24, D = 128, row = 3 * H * D;
    EXPECT_EQ(buffer(c, "qkv").count, static_cast<uint64_t>(N * row));
    const auto& q = buffer(c, "q");
    const auto& k = buffer(c, "k");
    ASSERT_TRUE(q.view && k.view);
    EXPECT_EQ(q.view->offset, 0);
    EXPECT_EQ(k.view->offset, H * D);
    EXPECT_EQ(q.view->strides, (std::vector<int64_t>{row, D, 1}));
    EXPECT_EQ(k.view->strides, (std::vector<int64_t>{row, D, 1}));
    const int64_t w = across ? H * D : D;
    EXPECT_EQ(buffer(c, "q_weight").count, static_cast<uint64_t>(w)) << label;
    EXPECT_EQ(buffer(c, "k_weight").count, static_cast<uint64_t>(w)) << label;
    // q and k read and written (2 bytes each), the weights read once; v never.
    EXPECT_DOUBLE_EQ(c.bytes, 2.0 * 2 * N * 2 * H * D + 2.0 * 2 * w) << label;
    // The activation (compare_torch.py's bar size): one view, q, never the whole qkv storage.
    EXPECT_DOUBLE_EQ(c.elements, 1.0 * N * H * D) << label;
  }
}

TEST(QknormTask, EachShapeRunsOnlyItsOwnHeadDim) {
  for (const auto& c : expand_cases(spec(), {}, {}, true))
    EXPECT_EQ(std::get<int64_t>(c.axes.at("head_dim")), c.shape->dims.at("D")) << c.label();
}

// One class per head_dim (and row width across heads), over dims only: a shape's two forms take
// the same class, each reading its own params (so `ako tune` per config class can tune them).
TEST(QknormTask, DefaultConfigClassesFitEveryShape) {
  for (const auto& c : expand_cases(spec(), {}, {}, false)) {
    const int64_t D = c.shape->dims.at("D"), HD = c.shape->dims.at("Hq") * D;
    EXPECT_EQ(c.config_class, "head-dim-" + std::to_string(D) + (HD <= 1024 ? "-narrow" : "")) << c.label();
    // per head one 16-byte access per lane; across heads the row in registers: CHUNKS accesses
    // of AGROUP x VEC per lane cover H * D
    EXPECT_EQ(c.params.at("GROUP") * c.params.at("VEC"), D) << c.label() << ": one 16-byte access per lane";
    EXPECT_GE(c.params.at("CHUNKS") * c.params.at("AGROUP") * c.params.at("VEC"), HD) << c.label();
  }
}

// A scratch root holding the spec and placeholder kernels, with or without the engines' files.
struct Scratch {
  fs::path root;
  explicit Scratch(bool sglang, bool flashinfer = false) {
    root = testsupport::copy_workspace("qknorm-spec", {"tasks/qknorm", "solution/qknorm/configs"});
    for (const char* f : {"input/qknorm/qknorm.cuh", "input/qknorm/oracle.cuh", "input/qknorm/peers/sglang_qknorm.cuh",
                          "input/qknorm/peers/flashinfer_qk_rmsnorm.cuh", "input/qknorm/peers/flashinfer_rmsnorm_qk.cuh",
                          "solution/qknorm/qknorm.cuh"})
      testing::write_file(root / f, "// placeholder for the task-spec tests\n");
    if (sglang)
      testing::write_file(root / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/qknorm.cuh", "// placeholder\n");
    if (flashinfer)
      testing::write_file(root / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh", "// placeholder\n");
  }
  ~Scratch() { fs::remove_all(root); }
  TaskSpec spec() const { return load_task(root, "qknorm"); }
};

TEST(QknormTask, SglangIsLaunchedAsItsRunWouldOnPerHeadCases) {
  Scratch scratch(true);
  const TaskSpec s = scratch.spec();
  const auto cases = expand_cases(s, {}, {}, false);
  const Case& flux = find_case(cases, "flux1 bf16 noacross_heads head_dim=128");
  ASSERT_EQ(flux.baselines.size(), 3u);  // sglang, flashinfer_qk_rmsnorm, flashinfer_rmsnorm
  EXPECT_EQ(flux.baselines[0].name, "sglang");
  ASSERT_TRUE(flux.baselines[0].kernel) << flux.baselines[0].absent_reason;
  const KernelInstance& k = *flux.baselines[0].kernel;
  EXPECT_EQ(k.name_expression, "sglang_qknorm<128, __nv_bfloat16>");
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{132 * 16, 1, 1}));  // persistent: min(SMs x 16, needed)
  const auto& opts = flux.baselines[0].options;
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-std=c++20"), opts.end());
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-default-device"), opts.end());
  const Case& across = find_case(cases, "flux1 bf16 across_heads head_dim=128");
  EXPECT_FALSE(across.baselines[0].kernel);
  EXPECT_EQ(across.baselines[0].absent_reason, "not applicable to this case (when: !across_heads)");
}

// FlashInfer's kernels as their launchers would run them, q's launch and k's as the two rows of
// one grid: QKRMSNorm per head (32 x 4 threads, the persistent grid min(132 SMs x 12, ceil(N H / 4))),
// RMSNorm across heads (one block per token, 32 x ceil(min(1024, H D / 8) / 32) threads).
TEST(QknormTask, FlashInferIsLaunchedAsItsLaunchersWould) {
  Scratch scratch(false, true);
  const TaskSpec s = scratch.spec();
  const auto cases = expand_cases(s, {}, {}, false);
  const auto& qk = find_case(cases, "wan13b-480p fp16 noacross_heads head_dim=128").baselines.at(1);
  EXPECT_EQ(qk.name, "flashinfer_qk_rmsnorm");
  ASSERT_TRUE(qk.kernel) << qk.absent_reason;
  EXPECT_EQ(qk.kernel->name_expression, "flashinfer_qk_rmsnorm<8, __half>");
  EXPECT_EQ(qk.kernel->grid, (std::array<uint32_t, 3>{132 * 12, 2, 1}));  // 32760 x 12 / 4 heads per block is more
  EXPECT_EQ(qk.kernel->block, (std::array<uint32_t, 3>{32, 4, 1}));
  ASSERT_EQ(qk.kernel->args.size(), 10u);
  EXPECT_EQ(qk.kernel->args[7].i, 36 * 128);  // token stride of the packed qkv
  EXPECT_EQ(qk.kernel->args[8].i, 128);       // head_dim
  const auto& ltx = find_case(cases, "ltx-video bf16 noacross_heads head_dim=64").baselines.at(1);
  ASSERT_TRUE(ltx.kernel) << ltx.absent_reason;
  EXPECT_EQ(ltx.kernel->name_expression, "flashinfer_qk_rmsnorm<8, __nv_bfloat16>");
  const auto& rms = find_case(cases, "wan14b-480p bf16 across_heads head_dim=128").baselines.at(2);
  EXPECT_EQ(rms.name, "flashinfer_rmsnorm");
  ASSERT_TRUE(rms.kernel) << rms.absent_reason;
  EXPECT_EQ(rms.kernel->name_expression, "flashinfer_rmsnorm_qk<8, __nv_bfloat16>");
  EXPECT_EQ(rms.kernel->grid, (std::array<uint32_t, 3>{32760, 2, 1}));
  EXPECT_EQ(rms.kernel->block, (std::array<uint32_t, 3>{32, 20, 1}));  // 5120 / 8 = 640 threads
  EXPECT_EQ(rms.kernel->shared_bytes, 20u * 4);
  const auto& opts = rms.options;
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-use_fast_math"), opts.end());
  // Each form has its own column; the other says not applicable.
  const Case& across = find_case(cases, "flux1 bf16 across_heads head_dim=128");
  EXPECT_FALSE(across.baselines.at(1).kernel);
  EXPECT_EQ(across.baselines.at(1).absent_reason, "not applicable to this case (when: !across_heads && Hq == Hk)");
  EXPECT_FALSE(find_case(cases, "flux1 bf16 noacross_heads head_dim=128").baselines.at(2).kernel);
}

TEST(QknormTask, SglangNotFetchedIsSaidPerCase) {
  Scratch scratch(false);
  const TaskSpec s = scratch.spec();
  const auto cases = expand_cases(s, {}, {}, false);
  const auto& b = find_case(cases, "ltx-video fp16 noacross_heads head_dim=64").baselines[0];
  EXPECT_FALSE(b.kernel);
  EXPECT_NE(b.absent_reason.find("not installed: peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/qknorm.cuh "
                                 "is missing; run scripts/fetch-sglang.sh"),
            std::string::npos)
      << b.absent_reason;
}

using testing::compile_rows;

bool sglang_fetched() {
  return fs::exists(kRoot / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/qknorm.cuh");
}

TEST(QknormTask, CompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task qknorm --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  const auto rows = compile_rows(r.out);
  int solutions = 0, baselines = 0, flashinfer = 0;
  for (const auto& row : rows) {
    solutions += row.role == "solution";
    baselines += row.role == "baseline sglang";
    flashinfer += row.role.rfind("baseline flashinfer", 0) == 0;
    // QKRMSNorm's persistent grid in task.json assumes 12 blocks of 128 threads per SM: 33 to 40
    // registers (40 x 128 x 12 <= 65536 < 40 x 128 x 13; 32 would allow 16).
    if (row.role == "baseline flashinfer_qk_rmsnorm") {
      EXPECT_GT(row.regs, 32) << row.kernel;
      EXPECT_LE(row.regs, 40) << row.kernel;
    }
    EXPECT_EQ(row.spill, 0) << row.role << " " << row.kernel;
    EXPECT_EQ(row.stack, 0) << row.role << " " << row.kernel << ": local memory";
    EXPECT_GT(row.regs, 0) << row.role << " " << row.kernel;
    // SGLang's run() sizes its persistent grid as 16 blocks of 128 threads per SM: 32 registers.
    if (row.role == "baseline sglang") {
      EXPECT_LE(row.regs, 32) << row.kernel;
    }
  }
  // head_dim 128 and 64 (the shapes' D; heads are run-time) x 2 forms x 2 dtypes; across heads
  // one CHUNKS for every width
  EXPECT_EQ(solutions, 2 * 2 * 2) << r.out;
  if (sglang_fetched()) {
    EXPECT_EQ(baselines, 2 * 2) << r.out;  // D = 128 (half warp) and 64 (warp), bf16 and fp16
  } else {
    EXPECT_TRUE(testsupport::has(r.out, "baseline sglang: not installed")) << r.out;
  }
  if (fs::exists(kRoot / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh")) {
    EXPECT_EQ(flashinfer, 2 * 2) << r.out;  // QKRMSNorm and RMSNorm, VEC 8, bf16 and fp16
  } else {
    EXPECT_TRUE(testsupport::has(r.out, "baseline flashinfer_qk_rmsnorm: not installed")) << r.out;
  }
}

// The per-head kernels the H200 config runs, in the PTX NVRTC emits for them (read from a kernel
// cache of the test's own): every global store is one vector access (a plain C++ store of a uint4
// came out as four 32-bit stores) and no fp32 division sits between the loads and the stores
// (ITERATIONS.md qknorm iteration 8: together 1-2% per head on the H200). The across-heads kernels
// keep the C++ store (it costs their 3-chunk form registers), so they are not held to it.
TEST(QknormTask, H200PerHeadKernelsStoreWholeChunksAndNeverDivide) {
  const fs::path cache = testsupport::copy_workspace("qknorm-ptx", {});
  const auto r = testsupport::run_ako("compile task qknorm --arch sm_90a -j 2 --device 'NVIDIA H200' --cache-dir '" +
                                          cache.string() + "'",
                                      kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  // qknorm_kernel<T, HEAD_DIM, ACROSS, ...> mangled: ...qknorm_kernelI<T>Li<D>ELb<ACROSS>E...
  static const std::regex per_head(R"(qknorm_kernelI(?:13__nv_bfloat16|6__half)Li\d+ELb0E)");
  static const std::regex scalar_store(R"(\bst\.global(?:\.[a-z]+)*\.(?:u32|b32|u16|b16)\s)");
  int checked = 0;
  for (const auto& [name, entry] : testing::ptx_entries(cache, "solution/qknorm/qknorm.cuh")) {
    if (!std::regex_search(name, per_head)) continue;
    ++checked;
    EXPECT_EQ(entry.find("div.rn.f32"), std::string::npos) << name << ": a full fp32 division";
    EXPECT_NE(entry.find("st.global"), std::string::npos) << name;
    EXPECT_FALSE(std::regex_search(entry, scalar_store)) << name << ": a 16-byte chunk stored in pieces";
  }
  // head_dim 128 and 64, bf16 and fp16, one kernel per per-head launch point of the H200 classes
  EXPECT_GE(checked, 4) << r.out;
}

// The configs and odd shapes of the GPU test RunQknorm.OtherGroupSizesAndTailsAreCorrect
// (tests/fixtures/qknorm/odd_paths.json) compile without spills: a spill there would have the
// static checks refuse its run on the GPU machine (session 36: the weight loaded with x spilled a
// 1024-thread block's per-head kernel, found only on the GPU).
TEST(QknormTask, TheGpuTestsOddPathConfigsCompileWithoutSpills) {
  const auto odd = testing::read_json(kRoot / "tests/fixtures/qknorm/odd_paths.json");
  const fs::path ws = testsupport::copy_workspace("qknorm-odd", {"tasks/qknorm", "input/qknorm", "solution/qknorm"});
  for (const auto& f : fs::directory_iterator(ws / "solution/qknorm/configs"))
    if (f.path().filename().string().starts_with("device_name=")) fs::remove(f.path());
  json doc = testing::read_json(ws / "tasks/qknorm/task.json");
  doc.erase("baselines");
  doc["shapes"] = odd["shapes"];
  testing::write_file(ws / "tasks/qknorm/task.json", doc.dump(2));
  ASSERT_EQ(odd["param_sets"].size(), 3u);
  for (const auto& params : odd["param_sets"]) {
    const json config = {{"schema", "ako.config/1"}, {"classes", {{{"name", "both-forms"}, {"params", params}}}}};
    testing::write_file(ws / "solution/qknorm/configs/default.json", config.dump(2));
    const auto r = testsupport::run_ako("compile task qknorm --arch sm_90a -j 2", ws);
    ASSERT_EQ(r.status, 0) << config.dump() << "\n" << r.out;
    EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << config.dump() << "\n" << r.out;
    const auto rows = compile_rows(r.out);
    EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](const auto& row) { return row.role == "solution"; }), 2 * 2 * 2)
        << r.out;  // head_dim 128 and 256 x 2 forms x 2 dtypes
    testing::expect_no_spills(rows);
  }
}

// Every class of default.json, D = 256 and a narrow across-heads row included, and the broken
// candidate of the GPU test as a drop-in solution.
TEST(QknormTask, EveryConfigClassAndTheBrokenCandidateCompile) {
  const fs::path ws = testsupport::copy_workspace("qknorm-classes", {"tasks/qknorm", "input/qknorm", "solution/qknorm"});
  json doc = testing::read_json(ws / "tasks/qknorm/task.json");
  doc.erase("baselines");
  doc["shapes"] = json::array({{{"name", "d64"}, {"N", 3}, {"Hq", 2}, {"Hk", 2}, {"D", 64}},
                               {{"name", "d64-wide"}, {"N", 3}, {"Hq", 20}, {"Hk", 20}, {"D", 64}},
                               {{"name", "d128-narrow"}, {"N", 3}, {"Hq", 4}, {"Hk", 4}, {"D", 128}},
                               {{"name", "d128"}, {"N", 3}, {"Hq", 12}, {"Hk", 12}, {"D", 128}},
                               {{"name", "d256"}, {"N", 3}, {"Hq", 3}, {"Hk", 1}, {"D", 256}},
                               {{"name", "d256-wide"}, {"N", 3}, {"Hq", 8}, {"Hk", 8}, {"D", 256}}});
  testing::write_file(ws / "tasks/qknorm/task.json", doc.dump(2));
  std::set<std::string> hit;
  const TaskSpec classes_spec = load_task(ws, "qknorm");
  for (const auto& c : expand_cases(classes_spec, {}, {}, false)) hit.insert(c.config_class);
  EXPECT_EQ(hit, (std::set<std::string>{"head-dim-64-narrow", "head-dim-64", "head-dim-128-narrow", "head-dim-128",
                                        "head-dim-256-narrow", "head-dim-256"}));
  auto r = testsupport::run_ako("compile task qknorm --arch sm_90a -j 2", ws);
  ASSERT_EQ(r.status, 0) << r.out;
  for (const auto& row : compile_rows(r.out)) {
    EXPECT_EQ(row.spill, 0) << row.kernel;
    EXPECT_EQ(row.stack, 0) << row.kernel;
  }
  r = testsupport::run_ako("compile task qknorm --arch sm_90a -j 2 --shapes d128 --solution '" +
                               (fs::path(AKO_TEST_DIR) / "tasks/broken/qknorm_k_takes_q_weight.cuh").string() + "'",
                           ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  fs::remove_all(ws);
}

}  // namespace
}  // namespace ako::task
