// tasks/scale_shift on the CPU: the spec loads; its cases are exactly the rule of
// context/scale_shift.md (every layout on image/medium shapes, the models' own on the big video
// shapes, no bf1c where it equals bc); scale and shift have each layout's extents and dtype;
// bytes count x and y once and each broadcast buffer once at its own size; the configured
// parameters fit every shape; every variant compiles for sm_90a without spills, as does the
// broken candidate the GPU test runs (tests/gpu/scale_shift_test.cpp).
#include <gtest/gtest.h>

#include <set>

#include "../ako_cli_support.hpp"
#include "compile_rows.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using testing::find_case;

const std::filesystem::path kRoot = AKO_SOURCE_DIR;
const char* const kLayouts[] = {"scalar", "c", "bc", "lc", "blc", "bf1c"};
const char* const kModDtypes[] = {"same", "fp32"};

const TaskSpec& spec() {
  static const TaskSpec s = load_task(kRoot, "scale_shift");
  return s;
}

const model::Buffer& buffer(const Case& c, const std::string& name) {
  for (const auto& b : c.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

std::string axis(const Case& c, const std::string& name) { return std::get<std::string>(c.axes.at(name)); }
int64_t dim(const Case& c, const char* name) { return c.shape->dims.at(name); }

// The rule of context/scale_shift.md, restated independently of the spec's `when`.
bool runs(int64_t B, int64_t L, int64_t F, const std::string& layout, const std::string& mod_dtype) {
  if (layout == "bf1c" && F == 1) return false;  // one frame per batch: bc byte for byte
  if (B * L < 30000) return true;                // image and medium shapes: every form
  return layout == "bc" || (layout == "bf1c" && mod_dtype == "fp32");  // big video: the models' forms
}

// Elements of scale (and of shift) per layout.
uint64_t modulation_elements(const std::string& layout, uint64_t B, uint64_t L, uint64_t C, uint64_t F) {
  if (layout == "scalar") return 1;
  if (layout == "c") return C;
  if (layout == "bc") return B * C;
  if (layout == "lc") return L * C;
  if (layout == "blc") return B * L * C;
  return B * F * C;  // bf1c
}

TEST(ScaleShiftTask, LoadsWithItsAxesDtypesAndOneUlpTolerances) {
  const TaskSpec& s = spec();
  EXPECT_EQ(s.dtypes, (std::vector<DType>{DType::bf16, DType::fp16}));
  ASSERT_EQ(s.axes.size(), 2u);
  EXPECT_EQ(s.axes[0].name, "layout");
  EXPECT_EQ(s.axes[0].strings, (std::vector<std::string>{"scalar", "c", "bc", "lc", "blc", "bf1c"}));
  EXPECT_EQ(s.axes[1].name, "mod_dtype");
  EXPECT_EQ(s.axes[1].strings, (std::vector<std::string>{"same", "fp32"}));
  // One ulp of the output passes anywhere in a binade (at most 2^-7 |y| for bf16, 2^-10 |y| for
  // fp16); three never do (at least 3 * 2^-8 |y|, 3 * 2^-11 |y|).
  EXPECT_DOUBLE_EQ(s.tolerance.at(DType::bf16).rtol, 8e-3);
  EXPECT_GE(s.tolerance.at(DType::bf16).rtol, 1.0 / 128);
  EXPECT_LT(s.tolerance.at(DType::bf16).rtol, 3.0 / 256);
  EXPECT_DOUBLE_EQ(s.tolerance.at(DType::fp16).rtol, 1e-3);
  EXPECT_GE(s.tolerance.at(DType::fp16).rtol, 1.0 / 1024);
  EXPECT_LT(s.tolerance.at(DType::fp16).rtol, 3.0 / 2048);
  EXPECT_DOUBLE_EQ(s.tolerance.at(DType::bf16).atol, 1e-4);
  EXPECT_DOUBLE_EQ(s.tolerance.at(DType::fp16).atol, 1e-4);
}

TEST(ScaleShiftTask, CompareCasesAreExactlyTheRuleOfTheContextNote) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  std::vector<std::string> want;  // expand_cases' order: shape, dtype, layout, mod_dtype
  for (const ShapeSpec& shape : spec().shapes)
    for (const char* dtype : {"bf16", "fp16"})
      for (const char* layout : kLayouts)
        for (const char* mod : kModDtypes)
          if (runs(shape.dims.at("B"), shape.dims.at("L"), shape.dims.at("F"), layout, mod))
            want.push_back(shape.name + " " + dtype + " layout=" + layout + " mod_dtype=" + mod);
  std::vector<std::string> got;
  for (const Case& c : cases) got.push_back(c.label());
  EXPECT_EQ(got, want);
  // 7 image/medium shapes x 2 dtypes x 10, plus 3 video shapes x 2 dtypes x 3.
  EXPECT_EQ(cases.size(), 158u);
  EXPECT_NO_THROW(find_case(cases, "wan13b-480p bf16 layout=bf1c mod_dtype=fp32"));
  EXPECT_NO_THROW(find_case(cases, "hunyuan-720p fp16 layout=bc mod_dtype=same"));
  EXPECT_NO_THROW(find_case(cases, "text-512-cfg bf16 layout=lc mod_dtype=fp32"));
  EXPECT_NO_THROW(find_case(cases, "ltx-video bf16 layout=blc mod_dtype=same"));
  EXPECT_THROW(find_case(cases, "hunyuan-720p bf16 layout=blc mod_dtype=fp32"), std::runtime_error);
  EXPECT_THROW(find_case(cases, "wan14b-480p bf16 layout=bf1c mod_dtype=same"), std::runtime_error);
  EXPECT_THROW(find_case(cases, "flux1-single bf16 layout=bf1c mod_dtype=fp32"), std::runtime_error);
}

TEST(ScaleShiftTask, ReferenceChecksRunEveryLayoutAgainstTheOracle) {
  const auto cases = expand_cases(spec(), {}, {}, true);
  std::set<std::string> layouts;
  int checks = 0;
  for (const Case& c : cases) {
    if (c.kind != "reference_check") continue;
    ++checks;
    EXPECT_FALSE(c.solution) << c.label();
    ASSERT_TRUE(c.oracle) << c.label();
    EXPECT_EQ(c.oracle->name_expression, "scale_shift_oracle<Layout::" + axis(c, "layout") + ">");
    EXPECT_EQ(static_cast<int64_t>(c.oracle->grid[0]), dim(c, "B") * dim(c, "L")) << c.label();  // one warp per token
    EXPECT_GT(dim(c, "F"), 1) << c.label();  // bf1c differs from bc on every check shape
    layouts.insert(axis(c, "layout"));
  }
  EXPECT_EQ(checks, 4 * 2 * 12);
  EXPECT_EQ(layouts.size(), 6u);
  const Case& odd = find_case(cases, "check-2x7x13-f7 fp16 layout=bf1c mod_dtype=same");
  EXPECT_EQ(odd.reference.name_expression, "scale_shift_reference<__half, __half, Layout::bf1c>");
  EXPECT_EQ(odd.reference.grid[0], 14u);
}

TEST(ScaleShiftTask, ScaleAndShiftHaveEachLayoutsExtentsAndDtype) {
  const auto cases = expand_cases(spec(), {}, {}, true);
  const std::map<std::string, std::vector<int64_t>> cfg = {  // text-512-cfg: B = 2, L = 512, C = 3072
      {"scalar", {1, 1, 1, 1}}, {"c", {1, 1, 1, 3072}}, {"bc", {2, 1, 1, 3072}},
      {"lc", {1, 1, 512, 3072}}, {"blc", {2, 1, 512, 3072}}};
  for (const auto& [layout, extents] : cfg)
    for (const char* mod : kModDtypes) {
      const Case& c = find_case(cases, std::string("text-512-cfg fp16 layout=") + layout + " mod_dtype=" + mod);
      for (const char* name : {"scale", "shift"}) {
        EXPECT_EQ(buffer(c, name).extents, extents) << c.label() << " " << name;
        EXPECT_EQ(buffer(c, name).dtype, std::string(mod) == "fp32" ? DType::fp32 : DType::fp16) << c.label();
        EXPECT_EQ(buffer(c, name).role, model::Role::in);
      }
      EXPECT_EQ(buffer(c, "y").dtype, DType::fp16);
      EXPECT_EQ(buffer(c, "y").extents, (std::vector<int64_t>{2, 512, 3072}));
    }
  const Case& frames = find_case(cases, "wan13b-480p bf16 layout=bf1c mod_dtype=fp32");
  EXPECT_EQ(buffer(frames, "scale").extents, (std::vector<int64_t>{1, 21, 1, 1536}));
  EXPECT_EQ(buffer(frames, "shift").dtype, DType::fp32);
  EXPECT_EQ(buffer(frames, "x").dtype, DType::bf16);
  const Case& check = find_case(cases, "check-3x10x100-f5 bf16 layout=bf1c mod_dtype=same");
  EXPECT_EQ(buffer(check, "scale").extents, (std::vector<int64_t>{3, 5, 1, 100}));
}

TEST(ScaleShiftTask, BytesCountXAndYOnceAndEachBroadcastBufferOnceAtItsOwnSize) {
  for (const Case& c : expand_cases(spec(), {}, {}, true)) {
    const uint64_t B = dim(c, "B"), L = dim(c, "L"), C = dim(c, "C"), F = dim(c, "F");
    const double x_bytes = static_cast<double>(B * L * C) * dtype_size(c.dtype);
    const double mod_bytes = static_cast<double>(modulation_elements(axis(c, "layout"), B, L, C, F)) *
                             dtype_size(axis(c, "mod_dtype") == "fp32" ? DType::fp32 : c.dtype);
    EXPECT_DOUBLE_EQ(c.bytes, 2 * x_bytes + 2 * mod_bytes) << c.label();
  }
  const auto cases = expand_cases(spec(), {}, {}, false);
  EXPECT_DOUBLE_EQ(find_case(cases, "wan13b-480p bf16 layout=bf1c mod_dtype=fp32").bytes,
                   2 * 32760.0 * 1536 * 2 + 2 * 21.0 * 1536 * 4);
  EXPECT_DOUBLE_EQ(find_case(cases, "text-512 fp16 layout=scalar mod_dtype=same").bytes, 2 * 512.0 * 3072 * 2 + 2 * 2);
  EXPECT_DOUBLE_EQ(find_case(cases, "ltx-video bf16 layout=blc mod_dtype=fp32").bytes,
                   2 * 6144.0 * 2048 * 2 + 2 * 6144.0 * 2048 * 4);
}

TEST(ScaleShiftTask, ConfiguredParamsFitEveryShapeAndGiveTheLaunchGeometry) {
  for (const Case& c : expand_cases(spec(), {}, {}, false)) {
    ASSERT_TRUE(c.solution) << c.label();
    const int64_t VEC = c.params.at("VEC"), TX = c.params.at("TX"), TY = c.params.at("TY"),
                  R = c.params.at("ROWS_PER_THREAD");
    const int64_t B = dim(c, "B"), L = dim(c, "L"), C = dim(c, "C");
    EXPECT_EQ(VEC, 8) << c.label();               // every model width takes 16-byte accesses
    EXPECT_EQ((C / VEC) % TX, 0) << c.label();    // no idle threads at a row's end
    EXPECT_EQ(static_cast<int64_t>(c.solution->block[0]), TX);
    EXPECT_EQ(static_cast<int64_t>(c.solution->block[1]), TY);
    EXPECT_GE(TX * TY, 256) << c.label();
    EXPECT_EQ(static_cast<int64_t>(c.solution->grid[0]), (C / VEC / TX) * ((B * L + TY * R - 1) / (TY * R))) << c.label();
    const std::string layout = axis(c, "layout");
    EXPECT_EQ(R, layout == "lc" || layout == "blc" ? 2 : 4) << c.label();
  }
  const auto cases = expand_cases(spec(), {}, {}, false);
  EXPECT_EQ(find_case(cases, "zimage bf16 layout=bc mod_dtype=fp32").solution->name_expression,
            "scale_shift_kernel<__nv_bfloat16, float, Layout::bc, 8, 160, 2, 4, 1, 0>");
  EXPECT_EQ(find_case(cases, "ltx-video fp16 layout=blc mod_dtype=same").solution->name_expression,
            "scale_shift_kernel<__half, __half, Layout::blc, 8, 128, 2, 2, 1, 0>");
  EXPECT_EQ(find_case(cases, "wan13b-480p bf16 layout=bf1c mod_dtype=fp32").solution->name_expression,
            "scale_shift_kernel<__nv_bfloat16, float, Layout::bf1c, 8, 64, 4, 4, 1, 0>");
}

using testing::compile_rows;
using testing::expect_no_spills;

TEST(ScaleShiftTask, EveryConfiguredVariantCompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task scale_shift --arch sm_90a -j 2", kRoot);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  std::set<std::string> layouts;
  int solutions = 0;
  const auto rows = compile_rows(r.out);
  expect_no_spills(rows);
  for (const auto& row : rows) {
    if (row.role != "solution") continue;
    ++solutions;
    EXPECT_GT(row.regs, 0) << row.kernel;
    EXPECT_LE(row.regs, 64) << row.kernel << ": more registers than the configs' occupancy assumes";
    for (const char* layout : kLayouts)
      if (testsupport::has(row.kernel, std::string("Layout::") + layout + ",")) layouts.insert(layout);
  }
  EXPECT_GE(solutions, 24) << r.out;  // 2 dtypes x 2 mod dtypes x 6 layouts, times the width classes
  EXPECT_EQ(layouts.size(), 6u) << r.out;
}

// ROW_CACHE 1 (x through the read-only cache): every layout and width compiles with it, without
// spills, and the H200 config's video classes (wan13b, wan14b, hunyuan-720p) take it.
TEST(ScaleShiftTask, TheReadOnlyRowPathCompilesOnEveryLayoutAndTheVideoClassesTakeIt) {
  const auto all = testsupport::run_ako("compile task scale_shift --arch sm_90a -j 2 --param ROW_CACHE=1", kRoot);
  ASSERT_EQ(all.status, 0) << all.out;
  std::set<std::string> layouts;
  const auto rows = compile_rows(all.out);
  expect_no_spills(rows);
  for (const auto& row : rows) {
    if (row.role != "solution") continue;
    EXPECT_TRUE(testsupport::has(row.kernel, ", 1>")) << row.kernel << ": ROW_CACHE=1 not in the instantiation";
    for (const char* layout : kLayouts)
      if (testsupport::has(row.kernel, std::string("Layout::") + layout + ",")) layouts.insert(layout);
  }
  EXPECT_EQ(layouts.size(), 6u) << all.out;

  const auto h200 = testsupport::run_ako(
      "compile task scale_shift --arch sm_90a -j 2 --device 'NVIDIA H200' --shapes wan13b-480p,wan14b-480p,hunyuan-720p", kRoot);
  ASSERT_EQ(h200.status, 0) << h200.out;
  int video = 0;
  for (const auto& row : compile_rows(h200.out)) {
    if (row.role != "solution") continue;
    ++video;
    EXPECT_TRUE(testsupport::has(row.kernel, ", 1>")) << row.kernel << ": a video class without ROW_CACHE 1";
  }
  EXPECT_GE(video, 6) << h200.out;
}

TEST(ScaleShiftTask, TheBrokenCandidateIsADropInSolution) {
  // tests/gpu/scale_shift_test.cpp runs it and expects every bf1c case incorrect.
  const auto r = testsupport::run_ako(
      "compile task scale_shift --arch sm_90a -j 2 --shapes wan13b-480p --solution tests/tasks/broken/scale_shift_ignores_frame.cuh",
      kRoot);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "Layout::bf1c")) << r.out;
}

}  // namespace
}  // namespace ako::task
