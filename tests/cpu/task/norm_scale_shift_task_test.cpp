// The norm_scale_shift task on the CPU: the spec loads; its `when` keeps every axis combination
// on the batched text shape and the check shapes and only the model sites elsewhere
// (context/norm_scale_shift.md); labels, name expressions and bytes (broadcast inputs once at
// their own size) are as intended; every configured variant compiles for sm_90a without
// spills, and so does the frame-blind broken candidate the GPU test runs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../ako_cli_support.hpp"
#include "compile_rows.hpp"
#include "common/error.hpp"
#include "norm_fusion_task_support.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using testing::find_case;
using testing::norm_fusion::buffer;
using testing::norm_fusion::compare_counts;
using testing::norm_fusion::kRepo;

const TaskSpec& spec() {
  static const TaskSpec s = load_task(kRepo, "norm_scale_shift");
  return s;
}

TEST(NormScaleShiftTask, LoadsWithItsAxes) {
  EXPECT_EQ(spec().dims, (std::vector<std::string>{"B", "L", "C", "F"}));
  ASSERT_EQ(spec().axes.size(), 3u);
  EXPECT_EQ(spec().axes[0].name, "norm");
  EXPECT_EQ(spec().axes[1].name, "layout");
  EXPECT_EQ(spec().axes[1].strings.size(), 6u);
  EXPECT_EQ(spec().axes[2].name, "mod_dtype");
  EXPECT_EQ(spec().shapes.size(), 10u);
}

// Every combination (2 norms x 6 layouts x 2 mod dtypes x affine or not = 48) on text-512-cfg
// but the per-frame ones (F = 1 there: bf1c is bc), which all run on wan13b-480p; the model
// sites on the rest: AdaLN (1), Wan (bc and bf1c, 2), LTX (1), Z-Image (1).
TEST(NormScaleShiftTask, CompareCasesAreEveryCombinationOnTheBatchedTextShapeAndModelSitesElsewhere) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  const std::map<std::string, int> per_dtype = {
      {"text-512", 1},     {"text-512-cfg", 40}, {"flux1-single", 1}, {"flux2-single", 1}, {"qwen-image", 1},
      {"zimage", 1},       {"ltx-video", 1},     {"wan13b-480p", 9},  {"wan14b-480p", 2},  {"hunyuan-720p", 1}};
  const auto counts = compare_counts(cases);
  for (const auto& [shape, n] : per_dtype)
    for (const char* dtype : {"bf16", "fp16"}) EXPECT_EQ(counts.at(shape + " " + dtype), n) << shape << " " << dtype;
  EXPECT_EQ(cases.size(), 2u * 58);
  // The model sites, by label (flags, then axes, in name order).
  for (const char* label : {"flux2-single bf16 noaffine layout=bc mod_dtype=same norm=layer",
                            "hunyuan-720p fp16 noaffine layout=bc mod_dtype=same norm=layer",
                            "wan13b-480p bf16 noaffine layout=bf1c mod_dtype=fp32 norm=layer",
                            "wan14b-480p bf16 noaffine layout=bc mod_dtype=fp32 norm=layer",
                            "ltx-video bf16 noaffine layout=blc mod_dtype=same norm=rms",
                            "zimage fp16 affine layout=bc mod_dtype=same norm=rms",
                            "text-512-cfg bf16 affine layout=scalar mod_dtype=fp32 norm=layer",
                            "wan13b-480p fp16 affine layout=bf1c mod_dtype=same norm=rms"})
    EXPECT_NO_THROW(find_case(cases, label)) << label;
  EXPECT_THROW(find_case(cases, "text-512-cfg bf16 noaffine layout=bf1c mod_dtype=same norm=layer"), std::runtime_error)
      << "per-frame with F = 1 repeats bc";
}

TEST(NormScaleShiftTask, CheckShapesRunEveryCombinationWithFrames) {
  const auto cases = expand_cases(spec(), {}, {}, true);
  std::map<std::string, int> checks;
  for (const auto& c : cases)
    if (c.kind == "reference_check") ++checks[c.shape->name];
  ASSERT_EQ(checks.size(), 4u);
  for (const auto& [shape, n] : checks)  // bf16 and fp16; per-frame only where F > 1
    EXPECT_EQ(n, shape == "check-1x5x37" ? 2 * 40 : 2 * 48) << shape;
  const Case& c = find_case(cases, "check-2x6x40-f3 fp16 affine layout=bf1c mod_dtype=fp32 norm=rms");
  ASSERT_TRUE(c.oracle);
  EXPECT_EQ(c.oracle->name_expression, "norm_scale_shift_oracle<Norm::rms, Layout::bf1c, true>");
  EXPECT_EQ(c.reference.name_expression, "norm_scale_shift_reference<__half, float, Norm::rms, Layout::bf1c, true>");
  EXPECT_EQ(buffer(c, "scale").extents, (std::vector<int64_t>{2, 3, 1, 40}));
}

TEST(NormScaleShiftTask, WanPerFrameCaseHasItsKernelsAndHonestBytes) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  const Case& c = find_case(cases, "wan14b-480p bf16 noaffine layout=bf1c mod_dtype=fp32 norm=layer");
  const model::Buffer& scale = buffer(c, "scale");
  EXPECT_EQ(scale.extents, (std::vector<int64_t>{1, 21, 1, 5120}));
  EXPECT_EQ(scale.dtype, DType::fp32);
  EXPECT_EQ(c.reference.name_expression,
            "norm_scale_shift_reference<__nv_bfloat16, float, Norm::layer, Layout::bf1c, false>");
  ASSERT_TRUE(c.solution);
  EXPECT_EQ(c.solution->name_expression.rfind("norm_scale_shift_kernel<__nv_bfloat16, float, Norm::layer, "
                                              "Layout::bf1c, false, ",
                                              0),
            0u)
      << c.solution->name_expression;
  // x read and y written once; scale and shift once at [1, 21, 1, C] fp32; no weight, no bias.
  EXPECT_DOUBLE_EQ(c.bytes, 2.0 * 32760 * 5120 * 2 + 2.0 * 21 * 5120 * 4);
}

TEST(NormScaleShiftTask, BytesCountEachBroadcastFormAtItsOwnSize) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  const double xy = 2.0 * 2 * 512 * 3072 * 2;  // text-512-cfg, bf16
  const std::map<std::string, double> mod_elems = {{"scalar", 1},           {"c", 3072},     {"bc", 2 * 3072},
                                                   {"lc", 512.0 * 3072},    {"blc", 2.0 * 512 * 3072}};
  for (const auto& [layout, n] : mod_elems) {
    if (layout == "bf1c") continue;  // not on text-512-cfg (F = 1); below on wan13b-480p
    const Case& c = find_case(cases, "text-512-cfg bf16 affine layout=" + layout + " mod_dtype=fp32 norm=layer");
    EXPECT_DOUBLE_EQ(c.bytes, xy + 2 * 3072 * 2 + 2 * n * 4) << layout;  // weight + bias bf16, scale + shift fp32
    const Case& rms = find_case(cases, "text-512-cfg bf16 affine layout=" + layout + " mod_dtype=same norm=rms");
    EXPECT_DOUBLE_EQ(rms.bytes, xy + 3072 * 2 + 2 * n * 2) << layout;  // RMSNorm: weight only
  }
  const Case& frames = find_case(cases, "wan13b-480p bf16 affine layout=bf1c mod_dtype=same norm=layer");
  EXPECT_DOUBLE_EQ(frames.bytes, 2.0 * 32760 * 1536 * 2 + 2 * 1536 * 2 + 2 * 21.0 * 1536 * 2);
  const Case& plain = find_case(cases, "text-512-cfg bf16 noaffine layout=bc mod_dtype=same norm=rms");
  EXPECT_FALSE(buffer(plain, "weight").present);
  EXPECT_FALSE(buffer(plain, "bias").present);
}

// A params choice whose chunks do not cover the row would drop columns: the constraints refuse it.
TEST(NormScaleShiftTask, ConstraintsRefuseChunksThatDoNotCoverTheRow) {
  try {
    expand_cases(spec(), {{"flux2-single"}, {}}, {{"CHUNKS", 1}, {"BLOCK", 256}, {"ROWS_PER_BLOCK", 1}}, false);
    FAIL() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("C <= CHUNKS * (BLOCK / ROWS_PER_BLOCK) * VEC"), std::string::npos)
        << e.what();
  }
}

// EARLY_MOD 2 stages BLOCK * CHUNKS * 2 * VEC * sizeof(scale) bytes in static shared memory: the
// spec refuses a launch shape whose fp32 staging would pass the 48 KB static limit (and takes the
// same shape without the staging), and a chunk cp.async cannot move.
TEST(NormScaleShiftTask, ConstraintsRefuseStagingPastTheStaticSharedMemory) {
  const ParamOverrides shape = {{"BLOCK", 256}, {"ROWS_PER_BLOCK", 2}, {"CHUNKS", 3}, {"VEC", 8}};
  auto with = [&](int64_t early) {
    auto p = shape;
    p["EARLY_MOD"] = early;
    return p;
  };
  EXPECT_FALSE(expand_cases(spec(), {{"flux1-single"}, {}}, with(0), false).empty());
  try {
    expand_cases(spec(), {{"flux1-single"}, {}}, with(2), false);
    FAIL() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("EARLY_MOD != 2 || BLOCK * CHUNKS * VEC <= 5120"), std::string::npos)
        << e.what();
  }
  // EARLY_MOD 3 stages one row a block (2 * CHUNKS * TPR * VEC * sizeof(S) bytes): the same
  // launch shape fits, a 1024-thread row of 8192 fp32 columns would not.
  EXPECT_FALSE(expand_cases(spec(), {{"flux1-single"}, {}}, with(3), false).empty());
  try {
    expand_cases(spec(), {{"flux1-single"}, {}},
                 {{"BLOCK", 1024}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 1}, {"VEC", 8}, {"EARLY_MOD", 3}}, false);
    FAIL() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("EARLY_MOD != 3 || CHUNKS * (BLOCK / ROWS_PER_BLOCK) * VEC <= 6144"),
              std::string::npos)
        << e.what();
  }
  // cp.async moves 4, 8 or 16*k bytes: one 16-bit element a chunk cannot be staged.
  try {
    expand_cases(spec(), {{"flux1-single"}, {}},
                 {{"BLOCK", 384}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 8}, {"VEC", 1}, {"EARLY_MOD", 2}}, false);
    FAIL() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("EARLY_MOD < 2 || VEC >= 2"), std::string::npos) << e.what();
  }
}

// EARLY_MOD 4 also stages weight and bias and folds into fp32 rows: 384 threads of one 16-byte
// chunk cover text-512-cfg's 3072 columns, under the static limit for every combination but the
// same-dtype affine LayerNorm (16 bytes a column). `--where` (CaseFilter::where) keeps only the
// cases it holds for and checks the constraints on those alone, so the folded point runs on the rest.
TEST(NormScaleShiftTask, WhereKeepsOnlyItsCasesAndChecksTheirConstraintsAlone) {
  const ParamOverrides folded = {{"BLOCK", 384}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 1}, {"VEC", 8}, {"EARLY_MOD", 4}};
  try {
    expand_cases(spec(), {{"text-512-cfg"}, {}}, folded, false);
    FAIL() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("EARLY_MOD != 4 ||"), std::string::npos) << e.what();
  }
  auto str = [](const Case& c, const char* axis) { return std::get<std::string>(c.axes.at(axis)); };
  const auto all = expand_cases(spec(), {{"text-512-cfg"}, {}}, {}, false);
  int same_affine_layer = 0;
  for (const auto& c : all)
    same_affine_layer += str(c, "mod_dtype") == "same" && c.flags.at("affine") && str(c, "norm") == "layer";
  ASSERT_GT(same_affine_layer, 0);
  const auto kept = expand_cases(spec(), {{"text-512-cfg"}, {}, "mod_dtype == 'fp32' || !affine || norm == 'rms'"},
                                 folded, false);
  EXPECT_EQ(kept.size(), all.size() - same_affine_layer);
  for (const auto& c : kept) {
    EXPECT_FALSE(str(c, "mod_dtype") == "same" && c.flags.at("affine") && str(c, "norm") == "layer") << c.label();
    EXPECT_EQ(c.params.at("EARLY_MOD"), 4) << c.label();
  }
  // dtype and dims count too; the check shapes are filtered alike.
  const auto fp16_frames =
      expand_cases(spec(), {{}, {}, "dtype == 'fp16' && (C == 1536 || C == 1539) && layout == 'bf1c'"}, {}, true);
  int checks = 0;
  for (const auto& c : fp16_frames) {
    EXPECT_EQ(c.dtype, DType::fp16) << c.label();
    EXPECT_EQ(std::get<std::string>(c.axes.at("layout")), "bf1c") << c.label();
    // wan13b-480p's cases, and check-3x4x1539-f2's among the reference checks
    EXPECT_EQ(c.kind == "compare" ? 1536 : 1539, c.shape->dims.at("C")) << c.label();
    checks += c.kind != "compare";
  }
  EXPECT_GT(checks, 0);
  EXPECT_LT(checks, static_cast<int>(fp16_frames.size()));
  // An expression that holds for no case, or does not evaluate, is an error that names --where.
  for (const char* where : {"C == 7", "no_such_name == 1"}) {
    try {
      expand_cases(spec(), {{"text-512-cfg"}, {}, where}, {}, false);
      FAIL() << where << ": expanded without error";
    } catch (const ako::Error& e) {
      EXPECT_NE(std::string(e.what()).find("--where"), std::string::npos) << e.what();
    }
  }
}

TEST(NormScaleShiftTask, EveryKernelCompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task norm_scale_shift --arch sm_90a -j 2", kRepo);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  // The static checks refuse a solution that spills or uses a stack (local_memory).
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
}

TEST(NormScaleShiftTask, FrameBlindBrokenCandidateIsADropIn) {
  const auto r = testsupport::run_ako(
      "compile task norm_scale_shift --arch sm_90a -j 2 --shapes wan13b-480p,text-512-cfg --solution "
      "tests/tasks/broken/norm_fusion_ignores_frames.cuh",
      kRepo);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  // Passes the static checks, so the GPU test's verdicts are about its values, not a refusal.
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
}

// SURE 1 (norm_scale_shift iteration 46): the H200's wan13b walk class skips the bounds test on the
// chunks k < CHUNKS - 1 the constraint keeps inside the row. Its six kernels (both dtypes; fp32
// no-affine, fp32 affine and same-dtype affine LayerNorm) compile for sm_90a at 10 blocks of 64 an SM
// without spills.
TEST(NormScaleShiftTask, TheWanWalkClassCompilesWithSureWithoutSpills) {
  const auto r = testsupport::run_ako(
      "compile task norm_scale_shift --arch sm_90a -j 2 --device 'NVIDIA H200' --shapes wan13b-480p", kRepo);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  int walked = 0;
  for (const auto& row : testing::compile_rows(r.out))
    if (row.role == "solution" && testsupport::has(row.kernel, "Layout::bf1c, ") &&
        row.kernel.ends_with(", 64, 8, 1, 3, 0, 10, 0, 1, 0, 1, 8, 4, 1>")) {
      ++walked;
      EXPECT_LE(row.regs, 65536 / (64 * 10)) << row.kernel;  // 10 blocks of 64 an SM
      EXPECT_EQ(row.spill, 0) << row.kernel;
      EXPECT_EQ(row.stack, 0) << row.kernel;
    }
  EXPECT_EQ(walked, 6) << r.out;
}

// fp32 is not run (context/norm_scale_shift.md), but every kernel takes T = float: it compiles and
// passes the static checks, so a later `when` over the dtype can switch it on.
TEST(NormScaleShiftTask, Fp32CasesCompileForSm90aWithoutSpills) {
  const auto r = testing::norm_fusion::compile_fp32("norm_scale_shift", "wan13b-480p,zimage");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "<float, float, Norm::")) << r.out;
}

// WALK (walked_rows): a group walks WALK tokens in turn with x copied DEPTH tokens ahead into a ring of
// static shared memory. The spec keeps the ring under 40 KB, DEPTH within the walk, and the walk to
// one token a thread without EARLY_MOD's staging; the kernels compile for sm_90a without spills on
// the layouts and both norms of the batched text shape (the GPU test runs them across frames).
TEST(NormScaleShiftTask, WalkConstraintsBoundTheRingAndWalkedKernelsCompile) {
  const ParamOverrides walk = {{"BLOCK", 384}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 1}, {"VEC", 8}, {"MIN_BLOCKS", 1},
                               {"WALK", 4}, {"DEPTH", 2}};
  EXPECT_FALSE(expand_cases(spec(), {{"flux1-single"}, {}}, walk, false).empty());
  auto refused = [&](ParamOverrides p, const std::string& constraint) {
    try {
      expand_cases(spec(), {{"flux1-single"}, {}}, p, false);
      ADD_FAILURE() << "expanded without error: " << constraint;
    } catch (const ako::SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(constraint), std::string::npos) << e.what();
    }
  };
  auto with = [&](const std::string& name, int64_t value) {
    auto p = walk;
    p[name] = value;
    return p;
  };
  refused(with("DEPTH", 8), "WALK == 1 ? DEPTH == 1 : DEPTH >= 2 && DEPTH <= WALK");  // deeper than the walk
  refused(with("TOKENS", 2), "WALK == 1 || TOKENS == 1 && EARLY_MOD == 0");
  refused(with("EARLY_MOD", 3), "WALK == 1 || TOKENS == 1 && EARLY_MOD == 0");
  auto deep = with("WALK", 16);
  deep["DEPTH"] = 8;  // 8 x 384 threads x 16 bytes: 48 KB
  refused(deep, "WALK == 1 || DEPTH * BLOCK * CHUNKS * VEC * 2 <= 40960");
  const auto r = testsupport::run_ako(
      "compile task norm_scale_shift --arch sm_90a -j 2 --shapes text-512-cfg --param BLOCK=256 "
      "--param ROWS_PER_BLOCK=2 --param CHUNKS=3 --param VEC=8 --param MIN_BLOCKS=1 --param WALK=8 --param DEPTH=3 "
      "--param STATS=1",
      kRepo);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "Layout::lc, true, 256, 8, 2, 3, 0, 1, 0, 1, 1, 1, 8, 3, 0>")) << r.out;
}

}  // namespace
}  // namespace ako::task
