// The gated_act task (tasks/gated_act, context/gated_act.md) on the CPU: the spec loads with its
// dtypes, activation axis and tolerances; the cases are every form on the image shapes and the
// ungated gelu_tanh on the video shapes, with stable labels; x is [rows, 2d] for the gated forms
// and [rows, d] for gelu_tanh, and the bytes count it once and out once; the default config
// tiles every model row exactly with 16-byte accesses; FlashInfer's act_and_mul_kernel is
// instantiated as its generated launcher would, on its two forms only; everything compiles for
// sm_90a with no spills, every config class included, and so does the deliberately wrong
// candidate. Its GPU side: tests/gpu/gated_act_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
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
using Kind = model::Arg::Kind;

const fs::path kRoot = AKO_SOURCE_DIR;

struct Shape {
  const char* name;
  int64_t rows, cols;
  bool video;  // runs the ungated gelu_tanh only
};
const Shape kShapes[] = {{"text-512", 512, 12288, false},       {"flux1-image", 4096, 12288, false},
                         {"flux1-single", 4608, 12288, false},  {"flux2-single", 4608, 18432, false},
                         {"qwen-image", 6889, 12288, false},    {"zimage", 4096, 10240, false},
                         {"ltx-video", 6144, 8192, false},      {"wan13b-480p", 32760, 8960, true},
                         {"wan14b-480p", 32760, 13824, true},   {"hunyuan-720p", 118800, 12288, true}};
const std::vector<std::string> kActs = {"gelu_tanh_and_mul", "silu_and_mul", "geglu", "gelu_tanh"};

TaskSpec gated_act() { return load_task(kRoot, "gated_act"); }

std::string act(const Case& c) { return std::get<std::string>(c.axes.at("act")); }

const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

TEST(GatedActTask, SpecLoadsWithItsDtypesFormsAndTolerances) {
  const TaskSpec spec = gated_act();
  EXPECT_EQ(spec.dims, (std::vector<std::string>{"rows", "cols"}));
  EXPECT_EQ(spec.dtypes, (std::vector<DType>{DType::bf16, DType::fp16}));
  EXPECT_TRUE(spec.flags.empty());
  ASSERT_EQ(spec.axes.size(), 1u);
  EXPECT_EQ(spec.axes[0].name, "act");
  EXPECT_EQ(spec.axes[0].strings, kActs);
  for (DType t : {DType::bf16, DType::fp16}) {
    EXPECT_DOUBLE_EQ(spec.tolerance.at(t).atol, 1e-2);
    EXPECT_DOUBLE_EQ(spec.tolerance.at(t).rtol, 1e-2);
  }
  ASSERT_EQ(spec.shapes.size(), std::size(kShapes));
  for (size_t i = 0; i < spec.shapes.size(); ++i) {
    EXPECT_EQ(spec.shapes[i].name, kShapes[i].name);
    EXPECT_EQ(spec.shapes[i].dims.at("rows"), kShapes[i].rows) << kShapes[i].name;
    EXPECT_EQ(spec.shapes[i].dims.at("cols"), kShapes[i].cols) << kShapes[i].name;
    EXPECT_FALSE(spec.shapes[i].source.empty()) << kShapes[i].name;
  }
}

TEST(GatedActTask, EveryFormOnImageShapesAndGeluTanhOnVideoShapes) {
  const TaskSpec spec = gated_act();  // cases point into it
  const auto cases = expand_cases(spec, {}, {}, true);
  std::map<std::string, std::set<std::string>> forms;  // shape -> acts (per dtype the same)
  int compares = 0, checks = 0;
  for (const auto& c : cases) {
    if (c.kind == "compare") {
      ++compares;
      forms[c.shape->name].insert(act(c));
    } else {
      ++checks;
    }
  }
  EXPECT_EQ(compares, (7 * 4 + 3) * 2);
  EXPECT_EQ(checks, 8 * 4 * 2);
  for (const auto& s : kShapes) {
    const std::set<std::string> want =
        s.video ? std::set<std::string>{"gelu_tanh"} : std::set<std::string>(kActs.begin(), kActs.end());
    EXPECT_EQ(forms[s.name], want) << s.name;
  }
  EXPECT_EQ(cases[0].label(), "text-512 bf16 act=gelu_tanh_and_mul");
  EXPECT_EQ(cases[3].label(), "text-512 bf16 act=gelu_tanh");
  EXPECT_EQ(cases[4].label(), "text-512 fp16 act=gelu_tanh_and_mul");
  const Case& c = find_case(cases, "zimage fp16 act=silu_and_mul");
  EXPECT_EQ(c.reference.name_expression, "gated_act_reference<__half, Act::silu_and_mul>");
  EXPECT_EQ(c.solution->name_expression, "gated_act_kernel<__half, Act::silu_and_mul, 128, 8, 2, 128, 2>");
  EXPECT_EQ(c.solution->grid[0], 4096u * 5);  // 1280 chunks per row in tiles of 256
  EXPECT_EQ(c.solution->block[0], 128u);
  ASSERT_TRUE(c.oracle);
  EXPECT_EQ(c.oracle->name_expression, "gated_act_oracle<Act::silu_and_mul>");
  const Case& check = find_case(cases, "check-5x99 bf16 act=geglu");
  EXPECT_EQ(check.kind, "reference_check");
  EXPECT_EQ(check.reference.grid[0], 5u);
}

TEST(GatedActTask, XIsBothHalvesForTheGatedFormsAndBytesCountEachBufferOnce) {
  const TaskSpec spec = gated_act();
  const auto cases = expand_cases(spec, {}, {}, false);
  const double rows = 4608, d = 18432;
  for (const char* a : {"gelu_tanh_and_mul", "silu_and_mul", "geglu"}) {
    const Case& c = find_case(cases, std::string("flux2-single bf16 act=") + a);
    EXPECT_EQ(buffer(c, "x").extents, (std::vector<int64_t>{4608, 2 * 18432})) << a;
    EXPECT_EQ(buffer(c, "out").extents, (std::vector<int64_t>{4608, 18432})) << a;
    EXPECT_DOUBLE_EQ(c.bytes, rows * 2 * d * 2 + rows * d * 2) << a;  // x read once, out written once
  }
  const Case& plain = find_case(cases, "hunyuan-720p fp16 act=gelu_tanh");
  EXPECT_EQ(buffer(plain, "x").extents, (std::vector<int64_t>{118800, 12288}));
  EXPECT_DOUBLE_EQ(plain.bytes, 2.0 * 118800 * 12288 * 2);
}

// The hand-written default config gives every model width 16-byte accesses and a tile that
// divides the row: no block of a row's last tile is partly idle.
TEST(GatedActTask, DefaultConfigTilesEveryModelRowExactly) {
  const TaskSpec spec = gated_act();
  const auto cases = expand_cases(spec, {}, {}, false);
  for (const auto& c : cases) {
    const int64_t cols = c.shape->dims.at("cols");
    EXPECT_EQ(c.params.at("VEC"), 8) << c.label();
    const bool mul = act(c) == "gelu_tanh_and_mul" || act(c) == "silu_and_mul";  // their own launch pair
    const int64_t tile = mul ? c.params.at("MUL_BLOCK") * c.params.at("MUL_UNROLL") : c.params.at("BLOCK") * c.params.at("UNROLL");
    EXPECT_EQ(cols / 8 % tile, 0) << c.label() << ": " << cols / 8 << " chunks in tiles of " << tile;
    EXPECT_NE(c.config_class, "wide") << c.label() << ": no class of its own";
  }
}

// A scratch root with the task's spec and config and placeholder kernels (nothing compiles
// here), with or without FlashInfer's and SGLang's extracted files.
struct Scratch {
  fs::path root = fs::temp_directory_path() / ("ako-gated-act-task-" + std::to_string(::getpid()));
  explicit Scratch(bool flashinfer, bool sglang = false) {
    fs::remove_all(root);
    for (const char* f : {"input/gated_act/gated_act.cuh", "input/gated_act/oracle.cuh",
                          "input/gated_act/peers/flashinfer_act_and_mul.cuh",
                          "input/gated_act/peers/sglang_act_and_mul.cuh", "solution/gated_act/gated_act.cuh"})
      testing::write_file(root / f, "// placeholder for the task-spec tests\n");
    if (flashinfer)
      testing::write_file(root / "peers/flashinfer-python-0.7.2/include/gen/flashinfer_act_funcs.cuh",
                          "// placeholder\n");
    if (sglang)
      testing::write_file(root / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/activation.cuh",
                          "// placeholder\n");
    fs::create_directories(root / "solution/gated_act/configs");
    fs::copy_file(kRoot / "solution/gated_act/configs/default.json", root / "solution/gated_act/configs/default.json");
  }
  ~Scratch() { fs::remove_all(root); }
  TaskSpec spec() const {
    return parse_task(testing::read_json(kRoot / "tasks/gated_act/task.json"), root / "tasks/gated_act/task.json", root);
  }
};

TEST(GatedActTask, FlashInferIsLaunchedAsItsGeneratedLauncherWould) {
  Scratch scratch(true);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const Case& bf16 = find_case(cases, "flux1-single bf16 act=gelu_tanh_and_mul");
  ASSERT_EQ(bf16.baselines.size(), 2u);  // flashinfer, sglang
  EXPECT_EQ(bf16.baselines[0].name, "flashinfer");
  ASSERT_TRUE(bf16.baselines[0].kernel) << bf16.baselines[0].absent_reason;
  const KernelInstance& k = *bf16.baselines[0].kernel;
  EXPECT_EQ(k.name_expression,
            "flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, FlashInferAct<Act::gelu_tanh_and_mul>::fn, 8>");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{4608, 1, 1}));  // one block per token
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{256, 1, 1}));  // min(d / vec_size, 256)
  EXPECT_EQ(k.shared_bytes, 0u);
  ASSERT_EQ(k.args.size(), 3u);
  EXPECT_EQ(k.args[0].kind, Kind::buffer);  // out
  EXPECT_EQ(k.args[1].kind, Kind::buffer);  // input
  EXPECT_EQ(k.args[2].kind, Kind::i32);     // d
  EXPECT_EQ(k.args[2].i, 12288);
  const auto& opts = bf16.baselines[0].options;
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-use_fast_math"), opts.end());

  const KernelInstance& silu = *find_case(cases, "zimage fp16 act=silu_and_mul").baselines[0].kernel;
  EXPECT_EQ(silu.name_expression,
            "flashinfer::activation::act_and_mul_kernel<__half, FlashInferAct<Act::silu_and_mul>::fn, 8>");
  // Narrow and odd widths: the widest of 8, 4, 2, 1 dividing d, and fewer threads.
  json doc = testing::read_json(kRoot / "tasks/gated_act/task.json");
  doc["shapes"] = json::array({json{{"name", "w100"}, {"rows", 3}, {"cols", 100}},
                               json{{"name", "w99"}, {"rows", 3}, {"cols", 99}}});
  const TaskSpec narrow = parse_task(doc, scratch.root / "tasks/gated_act/task.json", scratch.root);
  const auto ncases = expand_cases(narrow, {}, {}, false);
  const KernelInstance& w100 = *find_case(ncases, "w100 bf16 act=silu_and_mul").baselines[0].kernel;
  EXPECT_EQ(w100.name_expression,
            "flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, FlashInferAct<Act::silu_and_mul>::fn, 4>");
  EXPECT_EQ(w100.block[0], 25u);
  const KernelInstance& w99 = *find_case(ncases, "w99 fp16 act=gelu_tanh_and_mul").baselines[0].kernel;
  EXPECT_NE(w99.name_expression.find("::fn, 1>"), std::string::npos) << w99.name_expression;
  EXPECT_EQ(w99.block[0], 99u);

  for (const char* a : {"geglu", "gelu_tanh"}) {
    const Case& c = find_case(cases, std::string("text-512 bf16 act=") + a);
    EXPECT_FALSE(c.baselines[0].kernel) << a;
    EXPECT_NE(c.baselines[0].absent_reason.find("not applicable to this case"), std::string::npos)
        << c.baselines[0].absent_reason;
  }
}

// SGLang's JIT act_and_mul_kernel as ActivationKernel::launch() runs it for run_activation: one
// 16-byte vector per thread, 256 threads, a flat grid over rows x d / 8; only the gated forms
// with the activation on the first half, and d a multiple of the vector.
TEST(GatedActTask, SglangIsLaunchedAsItsRunActivationWould) {
  Scratch scratch(true, true);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const Case& c = find_case(cases, "flux1-single bf16 act=gelu_tanh_and_mul");
  ASSERT_EQ(c.baselines.size(), 2u);
  const auto& b = c.baselines[1];
  EXPECT_EQ(b.name, "sglang");
  ASSERT_TRUE(b.kernel) << b.absent_reason;
  EXPECT_EQ(b.kernel->name_expression, "sglang_act_and_mul<__nv_bfloat16, Act::gelu_tanh_and_mul>");
  EXPECT_EQ(b.kernel->grid, (std::array<uint32_t, 3>{4608 * (12288 / 8) / 256, 1, 1}));
  EXPECT_EQ(b.kernel->block, (std::array<uint32_t, 3>{256, 1, 1}));
  ASSERT_EQ(b.kernel->args.size(), 4u);  // out, x, rows, d
  EXPECT_EQ(b.kernel->args[2].i, 4608);
  EXPECT_EQ(b.kernel->args[3].i, 12288);
  for (const char* o : {"-use_fast_math", "-std=c++20", "-default-device"})
    EXPECT_NE(std::find(b.options.begin(), b.options.end(), o), b.options.end()) << o;
  EXPECT_EQ(find_case(cases, "text-512 fp16 act=silu_and_mul").baselines[1].kernel->name_expression,
            "sglang_act_and_mul<__half, Act::silu_and_mul>");
  for (const char* a : {"geglu", "gelu_tanh"}) {
    const auto& n = find_case(cases, std::string("text-512 bf16 act=") + a).baselines[1];
    EXPECT_FALSE(n.kernel) << a;
    EXPECT_NE(n.absent_reason.find("not applicable to this case"), std::string::npos) << n.absent_reason;
  }
  // A width that is no multiple of the 16-byte vector: run_activation refuses it.
  json doc = testing::read_json(kRoot / "tasks/gated_act/task.json");
  doc["shapes"] = json::array({json{{"name", "w100"}, {"rows", 3}, {"cols", 100}}});
  const TaskSpec narrow = parse_task(doc, scratch.root / "tasks/gated_act/task.json", scratch.root);
  const auto ncases = expand_cases(narrow, {}, {}, false);
  EXPECT_FALSE(find_case(ncases, "w100 bf16 act=silu_and_mul").baselines[1].kernel);
  fs::remove(scratch.root / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/activation.cuh");
  const TaskSpec unfetched = scratch.spec();
  const auto ucases = expand_cases(unfetched, {}, {}, false);
  const auto& u = find_case(ucases, "zimage bf16 act=silu_and_mul").baselines[1];
  EXPECT_NE(u.absent_reason.find("not installed: peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/activation.cuh "
                                 "is missing; run scripts/fetch-sglang.sh"),
            std::string::npos)
      << u.absent_reason;
}

TEST(GatedActTask, FlashInferNotInstalledIsSaidPerCase) {
  Scratch scratch(false);
  const TaskSpec spec = scratch.spec();
  const auto cases = expand_cases(spec, {}, {}, false);
  const auto& b = find_case(cases, "flux1-single fp16 act=silu_and_mul").baselines[0];
  EXPECT_FALSE(b.kernel);
  EXPECT_NE(b.absent_reason.find("not installed: peers/flashinfer-python-0.7.2/include/gen/flashinfer_act_funcs.cuh is "
                                 "missing"),
            std::string::npos)
      << b.absent_reason;
}

using testing::compile_rows;
using testing::expect_no_spills;

TEST(GatedActTask, CompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task gated_act --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  const auto rows = compile_rows(r.out);
  std::map<std::string, int> per_role;
  for (const auto& row : rows) per_role[row.role]++;
  EXPECT_EQ(per_role["reference"], 4 * 2) << r.out;
  EXPECT_EQ(per_role["oracle"], 4) << r.out;
  // Per dtype: the gated forms on the 4096-, 6144- and 2048-multiple classes, gelu_tanh on
  // those and the 4608- and 1792-multiple widths of the video shapes.
  EXPECT_EQ(per_role["solution"], (3 * 3 + 5) * 2) << r.out;
  if (fs::exists(kRoot / "peers/flashinfer-python-0.7.2/include/gen/flashinfer_act_funcs.cuh"))
    EXPECT_EQ(per_role["baseline flashinfer"], 2 * 2) << r.out;  // two forms x two dtypes, vec_size 8
  else
    EXPECT_TRUE(testsupport::has(r.out, "baseline flashinfer: not installed")) << r.out;
  if (fs::exists(kRoot / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/activation.cuh"))
    EXPECT_EQ(per_role["baseline sglang"], 2 * 2) << r.out;  // two forms x two dtypes
  else
    EXPECT_TRUE(testsupport::has(r.out, "baseline sglang: not installed")) << r.out;
  expect_no_spills(rows);
}

// Every class of every config file, not only those the model shapes pick: a copy of the task
// with one small shape per class of default.json (odd widths, narrow rows, each tiling) compiled
// the same way, with and without the device's own file.
TEST(GatedActTask, EveryConfigClassCompilesWithoutSpills) {
  const fs::path ws =
      testsupport::copy_workspace("gated-act-classes", {"tasks/gated_act", "input/gated_act", "solution/gated_act"});
  json doc = testing::read_json(ws / "tasks/gated_act/task.json");
  doc.erase("baselines");
  doc["shapes"] = json::array();
  std::set<std::string> classes;
  const json defaults = testing::read_json(ws / "solution/gated_act/configs/default.json");  // kept: a range-for over a temporary's member dangles
  for (const auto& cls : defaults["classes"]) classes.insert(cls["name"].get<std::string>());
  // One width per class of default.json, in its order (cols-odd ... wide); the H200 file also
  // splits the 4096-multiple widths by rows (text-512's few rows), hence a second 12288 shape.
  for (int64_t cols : {99, 130, 100, 1000, 12288, 18432, 13824, 10240, 8960, 8200})
    doc["shapes"].push_back({{"name", "w" + std::to_string(cols)}, {"rows", 3}, {"cols", cols}});
  doc["shapes"].push_back({{"name", "w12288-many-rows"}, {"rows", 2048}, {"cols", 12288}});
  testing::write_file(ws / "tasks/gated_act/task.json", doc.dump(2));
  const TaskSpec spec = load_task(ws, "gated_act");
  std::set<std::string> hit;
  for (const auto& c : expand_cases(spec, {}, {}, false)) hit.insert(c.config_class);
  EXPECT_EQ(hit, classes);
  for (const char* device : {"", " --device 'NVIDIA H200'"}) {
    const auto r = testsupport::run_ako(std::string("compile task gated_act --arch sm_90a -j 2") + device, ws);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
    const auto rows = compile_rows(r.out);
    EXPECT_GE(rows.size(), 10u * 2) << r.out;
    expect_no_spills(rows);
  }
  fs::remove_all(ws);
}

// The stores' cache policy by form, read from the PTX of the H200 build: the gated forms stream
// their output (st.global.cs), the ungated gelu_tanh writes back (st.global.wb: 0.5% faster over its
// 20 cases, ITERATIONS.md gated_act iteration 6), each as one vector store of its chunk.
TEST(GatedActTask, H200GatedFormsStreamTheirStoresAndTheUngatedFormWritesBack) {
  const fs::path cache = testsupport::copy_workspace("gated-act-ptx", {});
  const auto r = testsupport::run_ako("compile task gated_act --arch sm_90a -j 2 --device 'NVIDIA H200' --cache-dir '" +
                                          cache.string() + "'",
                                      kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  // gated_act_kernel<T, Act::N, ...> mangled: ...gated_act_kernelI<T>L3Act<N>E...; Act::gelu_tanh is 3.
  static const std::regex kernel(R"(gated_act_kernelI(?:13__nv_bfloat16|6__half)L3Act(\d)E)");
  static const std::regex store(R"(\bst\.global(?:\.[a-z0-9]+)*)");
  std::map<bool, int> checked;  // ungated? -> kernels
  for (const auto& [name, entry] : testing::ptx_entries(cache, "solution/gated_act/gated_act.cuh")) {
    std::smatch m;
    if (!std::regex_search(name, m, kernel)) continue;
    const bool ungated = m[1] == "3";
    ++checked[ungated];
    std::set<std::string> kinds;
    for (auto it = std::sregex_iterator(entry.begin(), entry.end(), store); it != std::sregex_iterator(); ++it)
      kinds.insert(it->str());
    EXPECT_EQ(kinds.size(), 1u) << name;
    for (const auto& k : kinds) {
      EXPECT_TRUE(k.starts_with(ungated ? "st.global.wb.v" : "st.global.cs.v")) << name << ": " << k;
    }
  }
  // bf16 and fp16: the three gated forms on three launch points, gelu_tanh on four (H200 config)
  EXPECT_GE(checked[false], 2 * 3 * 3) << r.out;
  EXPECT_GE(checked[true], 2 * 4) << r.out;
}

TEST(GatedActTask, TheWrongCandidateCompilesAsADropInSolution) {
  // tests/gpu/gated_act_test.cpp shows it incorrect; here: it builds in the solution's place.
  const auto r = testsupport::run_ako(
      "compile task gated_act --arch sm_90a -j 2 --shapes text-512 --solution '" +
          (fs::path(AKO_TEST_DIR) / "tasks/broken/gated_act_swapped_halves.cuh").string() + "'",
      kRoot);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
}

}  // namespace
}  // namespace ako::task
