// The layernorm task (tasks/layernorm, context/layernorm.md) on the CPU: the spec loads with its
// dtypes, form flag and tolerances; cases and labels are the ones intended; bytes count x, y
// and the affine parameters once; the default config keeps every shape's row in registers;
// FlashInfer's LayerNorm is instantiated as its launcher would; everything compiles for sm_90a
// with no spills in any configured variant, the deliberately wrong candidate included, and
// every variant's affine form within one register allocation unit of its no-affine form and its
// fp32 form within its bf16 form. Its GPU side: tests/gpu/layernorm_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "../ako_cli_support.hpp"
#include "compile_rows.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::find_case;
using Kind = model::Arg::Kind;

const fs::path kRoot = AKO_SOURCE_DIR;

struct Shape {
  const char* name;
  int64_t rows, cols;
  const char* config_class;
};
// rows = B * L of the families' shape table (text-512-cfg: B = 2).
const Shape kShapes[] = {{"text-512", 512, 3072, "cols-3072"},          {"text-512-cfg", 1024, 3072, "cols-3072"},
                         {"flux1-single", 4608, 3072, "cols-3072"},     {"flux2-single", 4608, 6144, "cols-6144"},
                         {"qwen-image", 6889, 3072, "cols-3072"},       {"zimage", 4096, 3840, "cols-3840"},
                         {"ltx-video", 6144, 2048, "cols-2048"},        {"wan13b-480p", 32760, 1536, "cols-1536"},
                         {"wan14b-480p", 32760, 5120, "cols-5120"},     {"hunyuan-720p", 118800, 3072, "cols-3072"}};

TaskSpec layernorm() { return load_task(kRoot, "layernorm"); }

const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

TEST(LayernormTask, SpecLoadsWithItsDtypesFormsAndTolerances) {
  const TaskSpec spec = layernorm();
  EXPECT_EQ(spec.dims, (std::vector<std::string>{"rows", "cols"}));
  EXPECT_EQ(spec.dtypes, (std::vector<DType>{DType::bf16, DType::fp16, DType::fp32}));
  EXPECT_EQ(spec.flags, (std::vector<std::string>{"affine"}));
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::bf16).atol, 1e-2);
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp16).rtol, 1e-2);
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp32).atol, 1e-5);
  EXPECT_DOUBLE_EQ(spec.tolerance.at(DType::fp32).rtol, 1e-5);
  ASSERT_EQ(spec.shapes.size(), std::size(kShapes));
  for (size_t i = 0; i < spec.shapes.size(); ++i) {
    EXPECT_EQ(spec.shapes[i].name, kShapes[i].name);
    EXPECT_EQ(spec.shapes[i].dims.at("rows"), kShapes[i].rows) << kShapes[i].name;
    EXPECT_EQ(spec.shapes[i].dims.at("cols"), kShapes[i].cols) << kShapes[i].name;
    EXPECT_FALSE(spec.shapes[i].source.empty()) << kShapes[i].name;
  }
}

TEST(LayernormTask, CasesAreEveryShapeDtypeAndFormWithStableLabels) {
  const TaskSpec spec = layernorm();  // cases point into it
  const auto cases = expand_cases(spec, {}, {}, true);
  int compares = 0, checks = 0;
  for (const auto& c : cases) (c.kind == "compare" ? compares : checks) += 1;
  EXPECT_EQ(compares, 10 * 3 * 2);
  EXPECT_EQ(checks, 8 * 3 * 2);
  EXPECT_EQ(cases[0].label(), "text-512 bf16 affine");
  EXPECT_EQ(cases[1].label(), "text-512 bf16 noaffine");
  EXPECT_EQ(cases[5].label(), "text-512 fp32 noaffine");
  const Case& c = find_case(cases, "wan14b-480p fp32 affine");
  EXPECT_EQ(c.reference.name_expression, "layernorm_reference<float, true>");
  EXPECT_EQ(c.solution->name_expression, "layernorm_kernel<float, true, 256, 8, 1, 3, 0, 1, 1, 0, 0, 0>");
  const Case& check = find_case(cases, "check-5x99 fp16 noaffine");
  EXPECT_EQ(check.kind, "reference_check");
  ASSERT_TRUE(check.oracle);
  EXPECT_EQ(check.oracle->name_expression, "layernorm_oracle<false>");
  EXPECT_EQ(check.oracle->grid[0], 5u);  // one warp per row
}

TEST(LayernormTask, BytesCountXAndYOnceAndTheAffineParametersOnce) {
  const TaskSpec spec = layernorm();
  const auto cases = expand_cases(spec, {}, {}, false);
  const double rows = 118800, cols = 3072;
  const Case& affine = find_case(cases, "hunyuan-720p bf16 affine");
  EXPECT_DOUBLE_EQ(affine.bytes, 2 * rows * cols * 2 + 2 * cols * 2);  // x read, out written, w and b read
  EXPECT_EQ(buffer(affine, "weight").extents, (std::vector<int64_t>{3072}));
  EXPECT_TRUE(buffer(affine, "bias").present);
  const Case& plain = find_case(cases, "hunyuan-720p fp32 noaffine");
  EXPECT_DOUBLE_EQ(plain.bytes, 2 * rows * cols * 4);
  EXPECT_FALSE(buffer(plain, "weight").present);
  EXPECT_FALSE(buffer(plain, "bias").present);
  EXPECT_EQ(buffer(plain, "out").dtype, DType::fp32);
}

// The default config's class per width holds every row in registers (the cached path), and the
// streamed path is never what a shipped case runs.
TEST(LayernormTask, DefaultConfigKeepsEveryShapeInRegisters) {
  const TaskSpec spec = layernorm();
  const auto cases = expand_cases(spec, {}, {}, false);
  for (const auto& c : cases) {
    const Shape* s = nullptr;
    for (const auto& k : kShapes)
      if (c.shape->name == k.name) s = &k;
    ASSERT_NE(s, nullptr) << c.label();
    EXPECT_EQ(c.config_class, s->config_class) << c.label();
    const int64_t tpr = c.params.at("BLOCK") / c.params.at("ROWS_PER_BLOCK");
    const int64_t chunks = s->cols / c.params.at("VEC");
    EXPECT_EQ(s->cols % c.params.at("VEC"), 0) << c.label();
    EXPECT_LE(chunks, c.params.at("CHUNKS") * tpr) << c.label() << ": row streamed, not held in registers";
  }
}

// A scratch root with the task's spec and config and placeholder kernels (nothing compiles
// here), with or without FlashInfer's header.
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("ako-layernorm-task-" + std::to_string(::getpid()));
  explicit Scratch(bool flashinfer) {
    fs::remove_all(root);
    for (const char* f : {"input/layernorm/layernorm.cuh", "input/layernorm/oracle.cuh",
                          "input/layernorm/peers/flashinfer_layernorm.cuh", "solution/layernorm/layernorm.cuh"})
      testing::write_file(root / f, "// placeholder for the task-spec tests\n");
    if (flashinfer)
      testing::write_file(root / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh", "// placeholder\n");
    fs::create_directories(root / "solution/layernorm/configs");
    fs::copy_file(kRoot / "solution/layernorm/configs/default.json", root / "solution/layernorm/configs/default.json");
  }
  ~Scratch() { fs::remove_all(root); }
  TaskSpec spec() const {
    return parse_task(testing::read_json(kRoot / "tasks/layernorm/task.json"), root / "tasks/layernorm/task.json", root);
  }
};

TEST(LayernormTask, FlashInferIsLaunchedAsItsHostLauncherWould) {
  Scratch scratch(true);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const Case& bf16 = find_case(cases, "flux2-single bf16 affine");  // 4608 x 6144
  ASSERT_EQ(bf16.baselines.size(), 1u);
  ASSERT_TRUE(bf16.baselines[0].kernel) << bf16.baselines[0].absent_reason;
  const KernelInstance& k = *bf16.baselines[0].kernel;
  // Even width of a 16-bit type: packed pairs, as LayerNorm<T, Tw>'s use_vec_type; Tw = T.
  EXPECT_EQ(k.name_expression,
            "flashinfer::norm::generalLayerNorm<tensorrt_llm::common::packed_as<__nv_bfloat16, 2>::type, "
            "tensorrt_llm::common::packed_as<__nv_bfloat16, 2>::type, int8_t, true, false>");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{4608, 1, 1}));
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{1024, 1, 1}));  // 32 * ceil(min(6144, 1024) / 32)
  EXPECT_EQ(k.shared_bytes, 6144u * 2);                        // hidden_dim * sizeof(T), unpacked T
  ASSERT_EQ(k.args.size(), 13u);
  for (int i : {0, 1, 2, 3}) EXPECT_EQ(k.args[i].kind, Kind::buffer) << i;  // x, gamma, beta, out
  EXPECT_EQ(k.args[4].kind, Kind::f32);
  EXPECT_DOUBLE_EQ(k.args[4].f, 1e-6);  // the task's eps
  EXPECT_EQ(k.args[5].i, 4608);  // tokens
  EXPECT_EQ(k.args[6].i, 6144);  // hidden_dim, unpacked
  for (int i = 7; i < 12; ++i) {  // clamp, per-tensor scale, per-token scale, sum, quantised out: null
    EXPECT_EQ(k.args[i].kind, Kind::i64) << i;
    EXPECT_EQ(k.args[i].i, 0) << i;
  }
  EXPECT_EQ(k.args[12].kind, Kind::i32);  // has_fp8_min_scaling = false
  EXPECT_EQ(k.args[12].i, 0);
  const auto& opts = bf16.baselines[0].options;
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-DENABLE_BF16"), opts.end());

  const KernelInstance& f32 = *find_case(cases, "text-512 fp32 affine").baselines[0].kernel;
  EXPECT_NE(f32.name_expression.find("packed_as<float, 1>::type"), std::string::npos) << f32.name_expression;
  EXPECT_EQ(f32.shared_bytes, 3072u * 4);
  const Case& plain = find_case(cases, "text-512 bf16 noaffine");
  EXPECT_FALSE(plain.baselines[0].kernel);
  EXPECT_EQ(plain.baselines[0].absent_reason, "not applicable to this case (when: affine)");
}

TEST(LayernormTask, FlashInferNotInstalledIsSaidPerCase) {
  Scratch scratch(false);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const auto& b = find_case(cases, "flux1-single fp16 affine").baselines[0];
  EXPECT_FALSE(b.kernel);
  EXPECT_NE(b.absent_reason.find("not installed: peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh is missing"),
            std::string::npos)
      << b.absent_reason;
}

using testing::compile_rows;
using testing::Row;
using testing::expect_no_spills;

// The kernel sets one register budget from the values a thread holds (min_blocks in
// solution/layernorm/layernorm.cuh): weight and bias, read at the store, cost the affine form at
// most one allocation unit (8 registers) over the no-affine form of the same variant, and fp32
// (VEC counted in 16-bit elements, 16-byte accesses) no fewer blocks an SM than bf16. Before
// (loaded with x, live across the reductions): 40 -> 64 at bf16 256 threads x 3 chunks of 8, and
// fp32 took 101 there.
struct Variant {
  std::string type, affine, params;  // "float", "true", "256, 8, 1, 3"
};
Variant variant_of(const std::string& kernel) {
  static const std::regex re(R"(^layernorm_kernel<([^,]+), (true|false), (.+)>$)");
  std::smatch m;
  if (!std::regex_match(kernel, m, re)) return {};
  return {m[1], m[2], m[3]};
}
int units(int regs) { return (regs + 7) / 8 * 8; }
// Blocks of `threads` an sm_90 SM holds by registers (and its 2048-thread limit): 256 registers a
// warp per allocation, warps rounded down to a multiple of the SM's four schedulers.
int blocks_per_sm(int regs, int threads) {
  const int warps = (threads + 31) / 32, per_warp = (regs * 32 + 255) / 256 * 256;
  return std::min(65536 / per_warp / 4 * 4 / warps, 2048 / threads);
}

void expect_register_parity(const std::vector<Row>& rows) {
  std::map<std::string, int> regs;  // "type|affine|params" -> registers
  for (const auto& r : rows)
    if (r.role == "solution") {
      const Variant v = variant_of(r.kernel);
      ASSERT_FALSE(v.type.empty()) << r.kernel;
      regs[v.type + "|" + v.affine + "|" + v.params] = r.regs;
    }
  int affine_pairs = 0, fp32_pairs = 0;
  for (const auto& [key, n] : regs) {
    const auto bar = key.find('|'), bar2 = key.find('|', bar + 1);
    const std::string type = key.substr(0, bar), affine = key.substr(bar + 1, bar2 - bar - 1),
                      params = key.substr(bar2 + 1);
    // Only where the kernel sets the budget (BUDGET = 1); with BUDGET = 0 ptxas picks, which the
    // tune may prefer for a width. And only with weight and bias read at the store (WB_EARLY = 0):
    // loaded with x they are held across the reductions by design. params: BLOCK, VEC,
    // ROWS_PER_BLOCK, CHUNKS, X_L1, BUDGET, STORE_CS, WB_EARLY, STATS, SURE.
    std::vector<std::string> p;
    for (size_t at = 0; at != std::string::npos;) {
      const size_t comma = params.find(", ", at);
      p.push_back(params.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      at = comma == std::string::npos ? comma : comma + 2;
    }
    EXPECT_EQ(p.size(), 10u) << params;
    if (p.size() != 10u || p[5] != "1" || p[7] != "0") continue;
    // Except 1024-thread blocks (the default class, widths above 8192, none in the task): at 32
    // registers the no-affine form fits two of them; the affine form's one unit more fits one,
    // and ptxas may then use up to 64.
    if (affine == "true" && !params.starts_with("1024,")) {
      const auto plain = regs.find(type + "|false|" + params);
      if (plain != regs.end()) {
        ++affine_pairs;
        EXPECT_LE(units(n), units(plain->second) + 8)
            << type << " " << params << ": affine " << n << " registers, no-affine " << plain->second;
      }
    }
    // fp32 against bf16 by the occupancy the counts allow: at 256 threads and VEC 2 x 1 chunk
    // NVRTC gives fp32 26 registers and bf16 24 (two allocation units, the same 8 blocks an SM)
    // since layernorm addresses its shared memory itself (ITERATIONS.md layernorm iteration 7).
    if (type == "float") {
      const auto bf16 = regs.find("__nv_bfloat16|" + affine + "|" + params);
      if (bf16 != regs.end()) {
        ++fp32_pairs;
        const int threads = std::stoi(p[0]);
        EXPECT_GE(blocks_per_sm(n, threads), blocks_per_sm(bf16->second, threads))
            << params << " affine=" << affine << ": fp32 " << n << " registers, bf16 " << bf16->second;
      }
    }
  }
  EXPECT_GT(affine_pairs, 0);
  EXPECT_GT(fp32_pairs, 0);
}

TEST(LayernormTask, CompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task layernorm --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  const auto rows = compile_rows(r.out);
  int solutions = 0, baselines = 0;
  for (const auto& row : rows) {
    solutions += row.role == "solution";
    baselines += row.role == "baseline flashinfer";
  }
  EXPECT_EQ(solutions, 5 * 3 * 2) << r.out;  // five layouts (5120 and 6144 share one) x dtypes x forms
  if (fs::exists(kRoot / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh"))
    EXPECT_EQ(baselines, 3) << r.out;  // bf16x2, half2, float
  else
    EXPECT_TRUE(testsupport::has(r.out, "baseline flashinfer: not installed")) << r.out;
  expect_no_spills(rows);
  expect_register_parity(rows);
  // The widths the H200 runs measured worst before: hunyuan's 3072 (256 threads x 3 chunks of
  // 4) keeps 32 registers (2048 threads per SM) in both forms, as the no-affine form had.
  for (const auto& row : rows) {
    if (row.kernel.find(", 256, 4, 1, 3,") != std::string::npos) {
      EXPECT_LE(row.regs, 32) << row.kernel;
    }
  }
}

// SURE 1 (layernorm iteration 12): the cached path skips the bounds test on the chunks the task's
// constraint keeps inside the row. Under the H200 config's classes of wan13b, zimage, qwen-image and
// flux1-single every 16-bit and no-affine kernel compiles with it for sm_90a without spills (two fp32
// affine kernels of other classes spill under it, which is why it is a parameter).
TEST(LayernormTask, SureChunksCompileWithoutSpillsOnTheImageAndWanClasses) {
  const auto r = testsupport::run_ako(
      "compile task layernorm --arch sm_90a -j 2 --device 'NVIDIA H200' --shapes wan13b-480p,zimage,qwen-image,"
      "flux1-single --where \"dtype != 'fp32' || !affine\" --param SURE=1",
      kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  const auto rows = compile_rows(r.out);
  int sure = 0;
  for (const auto& row : rows)
    if (row.role == "solution") {
      EXPECT_TRUE(row.kernel.ends_with(", 1>")) << row.kernel;
      ++sure;
    }
  EXPECT_GT(sure, 0) << r.out;
  expect_no_spills(rows);
}

// Rows over whole warps that are not a power of two (layernorm iteration 14): 160 threads x 3
// chunks of 8 (zimage's 3840 columns exactly, 5 warps) compile for sm_90a without spills in every
// dtype and form; a row of 48 threads (a warp and a half) is refused by the task's constraint
// before anything compiles.
TEST(LayernormTask, RowsOfWholeWarpsCompileAndPartWarpsAreRefused) {
  const auto r = testsupport::run_ako(
      "compile task layernorm --arch sm_90a -j 2 --shapes zimage --param BLOCK=160 --param VEC=8 --param CHUNKS=3", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  const auto rows = compile_rows(r.out);
  int five_warps = 0;
  for (const auto& row : rows)
    if (row.role == "solution") {
      EXPECT_NE(row.kernel.find(", 160, 8, 1, 3,"), std::string::npos) << row.kernel;
      ++five_warps;
    }
  EXPECT_EQ(five_warps, 3 * 2) << r.out;  // dtypes x forms
  expect_no_spills(rows);

  const auto refused = testsupport::run_ako(
      "compile task layernorm --arch sm_90a --shapes zimage --param BLOCK=96 --param ROWS_PER_BLOCK=2 --param VEC=8 "
      "--param CHUNKS=8",
      kRoot);
  EXPECT_NE(refused.status, 0) << refused.out;
  EXPECT_TRUE(testsupport::has(refused.out, "(BLOCK / ROWS_PER_BLOCK) % 32 == 0")) << refused.out;
  EXPECT_TRUE(testsupport::has(refused.out, "does not hold")) << refused.out;
}

// Every class of every config file, not only those the shapes pick: a copy of the task with one
// shape per class (odd widths, narrow rows, the widest) compiled the same way.
TEST(LayernormTask, EveryConfigClassCompilesWithoutSpills) {
  const fs::path ws = testsupport::copy_workspace("layernorm-classes", {"tasks/layernorm", "input/layernorm",
                                                                        "solution/layernorm"});
  json doc = testing::read_json(ws / "tasks/layernorm/task.json");
  doc.erase("baselines");
  const json task_shapes = doc["shapes"];
  doc["shapes"] = json::array();
  std::set<std::string> classes;
  for (const auto& f : fs::directory_iterator(ws / "solution/layernorm/configs")) {
    const json config = testing::read_json(f.path());
    for (const auto& cls : config["classes"]) {
      const std::string name = cls["name"].get<std::string>();
      classes.insert(name);
      // A class of a per-shape tune (`ako tune --classes shape`): that task shape.
      if (name.starts_with("shape-"))
        for (const auto& s : task_shapes)
          if ("shape-" + s["name"].get<std::string>() == name) doc["shapes"].push_back(s);
    }
  }
  // One width per class of default.json, in its order (cols-odd ... default).
  for (int64_t cols : {3001, 1030, 100, 128, 256, 512, 1000, 1536, 2048, 3072, 3840, 4096, 5120, 6144, 8192, 16384})
    doc["shapes"].push_back({{"name", "w" + std::to_string(cols)}, {"rows", 3}, {"cols", cols}});
  testing::write_file(ws / "tasks/layernorm/task.json", doc.dump(2));
  // default.json (no device), then each device's file, as `ako compile --device` picks it.
  std::vector<std::string> devices = {""};
  for (const auto& f : fs::directory_iterator(ws / "solution/layernorm/configs")) {
    const std::string file = f.path().stem().string();
    if (file.starts_with("device_name=")) {
      std::string name = file.substr(std::string("device_name=").size());
      std::replace(name.begin(), name.end(), '_', ' ');
      devices.push_back(name);
    }
  }
  std::set<std::string> hit;
  for (const std::string& device : devices) {
    TaskSpec spec = load_task(ws, "layernorm");
    if (!device.empty()) use_device_config(spec, device, kDeviceFromOption);
    for (const auto& c : expand_cases(spec, {}, {}, false)) hit.insert(c.config_class);

    const auto r = testsupport::run_ako(
        "compile task layernorm --arch sm_90a -j 2" + (device.empty() ? "" : " --device '" + device + "'"), ws);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
    const auto rows = compile_rows(r.out);
    EXPECT_GE(rows.size(), 12u * 3 * 2) << r.out;
    expect_no_spills(rows);
    expect_register_parity(rows);
  }
  EXPECT_EQ(hit, classes);  // every class was compiled
  fs::remove_all(ws);
}

TEST(LayernormTask, TheWrongCandidateCompilesAsADropInSolution) {
  // tests/gpu/layernorm_test.cpp shows it incorrect; here: it builds in the solution's place.
  const auto r = testsupport::run_ako(
      "compile task layernorm --arch sm_90a -j 2 --shapes text-512 --solution '" +
          (fs::path(AKO_TEST_DIR) / "tasks/broken/layernorm_variance_around_zero.cuh").string() + "'",
      kRoot);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
}

}  // namespace
}  // namespace ako::task
