// The residual_gate_norm_scale_shift task on the CPU: the spec loads; its `when` keeps, on the
// batched text shape and the check shapes, every layout with the per-batch gate and every gate
// with the per-batch layout, and only the model sites elsewhere
// (context/residual_gate_norm_scale_shift.md); both outputs with their own tolerances; the
// oracle rounds residual_out to the case's dtype; bytes count both outputs and every broadcast
// input once; every configured variant compiles for sm_90a without spills, and so does the
// frame-blind broken candidate the GPU test runs.
#include <gtest/gtest.h>

#include <map>

#include "../ako_cli_support.hpp"
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
  static const TaskSpec s = load_task(kRepo, "residual_gate_norm_scale_shift");
  return s;
}

TEST(ResidualGateNormScaleShiftTask, LoadsWithItsAxesAndTwoOutputs) {
  ASSERT_EQ(spec().axes.size(), 4u);
  EXPECT_EQ(spec().axes[2].name, "gate");
  EXPECT_EQ(spec().axes[2].strings, (std::vector<std::string>{"none", "bc", "bf1c"}));
  const auto cases = expand_cases(spec(), {{"text-512"}, {}}, {}, false);
  ASSERT_FALSE(cases.empty());
  const Case& c = cases.front();
  EXPECT_EQ(buffer(c, "y").role, model::Role::out);
  EXPECT_EQ(buffer(c, "residual_out").role, model::Role::out);
  EXPECT_DOUBLE_EQ(buffer(c, "y").tolerance.atol, 5e-2);
  EXPECT_DOUBLE_EQ(buffer(c, "residual_out").tolerance.atol, 1e-2);
  EXPECT_DOUBLE_EQ(buffer(c, "residual_out").tolerance.rtol, 1e-2);
}

// On text-512-cfg: (6 layouts with gate bc, plus gates none and bf1c with layout bc) x 2 norms
// x 2 mod dtypes x affine or not, but the per-frame ones (F = 1 there) = 48; those 16 run on
// wan13b-480p instead; elsewhere AdaLN (1), Wan (4), LTX (1), Z-Image (1).
TEST(ResidualGateNormScaleShiftTask, CompareCasesAreTheBranchesOnTheBatchedTextShapeAndModelSitesElsewhere) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  const std::map<std::string, int> per_dtype = {
      {"text-512", 1},     {"text-512-cfg", 48}, {"flux1-single", 1}, {"flux2-single", 1}, {"qwen-image", 1},
      {"zimage", 1},       {"ltx-video", 1},     {"wan13b-480p", 20},  {"wan14b-480p", 4},  {"hunyuan-720p", 1}};
  const auto counts = compare_counts(cases);
  for (const auto& [shape, n] : per_dtype)
    for (const char* dtype : {"bf16", "fp16"}) EXPECT_EQ(counts.at(shape + " " + dtype), n) << shape << " " << dtype;
  EXPECT_EQ(cases.size(), 2u * 79);
  // Axes in name order: gate, layout, mod_dtype, norm.
  for (const char* label : {"flux1-single bf16 noaffine gate=bc layout=bc mod_dtype=same norm=layer",
                            "wan14b-480p bf16 affine gate=bf1c layout=scalar mod_dtype=fp32 norm=layer",
                            "wan14b-480p bf16 affine gate=bc layout=scalar mod_dtype=fp32 norm=layer",
                            "wan13b-480p fp16 noaffine gate=none layout=bf1c mod_dtype=fp32 norm=layer",
                            "wan13b-480p fp16 noaffine gate=none layout=bc mod_dtype=fp32 norm=layer",
                            "ltx-video bf16 noaffine gate=bc layout=blc mod_dtype=same norm=rms",
                            "zimage bf16 affine gate=bc layout=bc mod_dtype=same norm=rms",
                            "wan13b-480p bf16 noaffine gate=bf1c layout=bc mod_dtype=fp32 norm=rms",
                            "wan13b-480p fp16 affine gate=bc layout=bf1c mod_dtype=same norm=layer",
                            "text-512-cfg bf16 noaffine gate=none layout=bc mod_dtype=fp32 norm=rms",
                            "text-512-cfg fp16 affine gate=bc layout=lc mod_dtype=same norm=layer"})
    EXPECT_NO_THROW(find_case(cases, label)) << label;
  EXPECT_THROW(find_case(cases, "text-512-cfg bf16 affine gate=bf1c layout=blc mod_dtype=same norm=layer"),
               std::runtime_error)
      << "two non-default indexings at once are left out";
}

TEST(ResidualGateNormScaleShiftTask, TheOracleRoundsResidualOutToTheCaseDtype) {
  const auto cases = expand_cases(spec(), {}, {}, true);
  std::map<std::string, int> checks;
  for (const auto& c : cases)
    if (c.kind == "reference_check") ++checks[c.shape->name];
  ASSERT_EQ(checks.size(), 4u);
  for (const auto& [shape, n] : checks)  // bf16 and fp16; per-frame only where F > 1
    EXPECT_EQ(n, shape == "check-1x5x37" ? 2 * 48 : 2 * 64) << shape;
  const Case& c = find_case(cases, "check-2x6x40-f3 fp16 noaffine gate=bf1c layout=bc mod_dtype=fp32 norm=rms");
  ASSERT_TRUE(c.oracle);
  EXPECT_EQ(c.oracle->name_expression,
            "residual_gate_norm_scale_shift_oracle<Dtype::fp16, Norm::rms, Layout::bc, Layout::bf1c, false>");
  EXPECT_EQ(c.reference.name_expression,
            "residual_gate_norm_scale_shift_reference<__half, float, Norm::rms, Layout::bc, Layout::bf1c, false>");
  EXPECT_EQ(buffer(c, "gate").extents, (std::vector<int64_t>{2, 3, 1, 40}));
  EXPECT_EQ(buffer(c, "gate").dtype, DType::fp32);
}

TEST(ResidualGateNormScaleShiftTask, BytesCountBothOutputsAndEachBroadcastInputOnce) {
  const auto cases = expand_cases(spec(), {}, {}, false);
  const double rows = 32760.0 * 5120;
  // Wan's self-attention residual norm: gate per frame fp32, scalar scale / shift fp32, affine LayerNorm.
  const Case& self = find_case(cases, "wan14b-480p bf16 affine gate=bf1c layout=scalar mod_dtype=fp32 norm=layer");
  EXPECT_DOUBLE_EQ(self.bytes, 4 * rows * 2 + 21.0 * 5120 * 4 + 2 * 5120 * 2 + 2 * 4);
  // Wan's cross-attention residual norm: no gate (1), per-frame scale / shift fp32, no affine.
  const Case& cross = find_case(cases, "wan14b-480p bf16 noaffine gate=none layout=bf1c mod_dtype=fp32 norm=layer");
  EXPECT_FALSE(buffer(cross, "gate").present);
  EXPECT_DOUBLE_EQ(cross.bytes, 4 * rows * 2 + 2 * 21.0 * 5120 * 4);
  ASSERT_TRUE(cross.solution);
  EXPECT_EQ(cross.solution->name_expression.rfind("residual_gate_norm_scale_shift_kernel<__nv_bfloat16, float, "
                                                  "Norm::layer, Layout::bf1c, Layout::none, false, ",
                                                  0),
            0u)
      << cross.solution->name_expression;
}

TEST(ResidualGateNormScaleShiftTask, EveryKernelCompilesForSm90aWithoutSpills) {
  const auto r = testsupport::run_ako("compile task residual_gate_norm_scale_shift --arch sm_90a -j 2", kRepo);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;  // no spills, no stack
}

TEST(ResidualGateNormScaleShiftTask, FrameBlindBrokenCandidateIsADropIn) {
  const auto r = testsupport::run_ako(
      "compile task residual_gate_norm_scale_shift --arch sm_90a -j 2 --shapes wan13b-480p --solution "
      "tests/tasks/broken/norm_fusion_ignores_frames.cuh",
      kRepo);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  // Passes the static checks, so the GPU test's verdicts are about its values, not a refusal.
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
}

// fp32 is not run (context/residual_gate_norm_scale_shift.md), but every kernel takes T = float: it compiles and
// passes the static checks, so a later `when` over the dtype can switch it on.
TEST(ResidualGateNormScaleShiftTask, Fp32CasesCompileForSm90aWithoutSpills) {
  const auto r = testing::norm_fusion::compile_fp32("residual_gate_norm_scale_shift", "wan13b-480p,ltx-video");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "<float, float, Norm::")) << r.out;
}

// WALK in the residual fusion: two row streams (residual and x) in the ring, so the spec bounds it at
// twice norm_scale_shift's bytes a stage; the walked kernels compile for sm_90a without spills on every
// gate and modulation layout of the batched text shape.
TEST(ResidualGateNormScaleShiftTask, WalkConstraintsBoundTheTwoStreamRingAndWalkedKernelsCompile) {
  const ParamOverrides walk = {{"BLOCK", 128}, {"ROWS_PER_BLOCK", 1}, {"CHUNKS", 3}, {"VEC", 8}, {"MIN_BLOCKS", 1},
                               {"WALK", 8}, {"DEPTH", 3}};
  EXPECT_FALSE(expand_cases(spec(), {{"flux1-single"}, {}}, walk, false).empty());
  auto deep = walk;
  deep["DEPTH"] = 4;  // 4 x 2 streams x 128 threads x 3 chunks x 16 bytes: 48 KB
  try {
    expand_cases(spec(), {{"flux1-single"}, {}}, deep, false);
    ADD_FAILURE() << "expanded without error";
  } catch (const ako::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("WALK == 1 || DEPTH * BLOCK * CHUNKS * VEC * 4 <= 40960"), std::string::npos)
        << e.what();
  }
  const auto r = testsupport::run_ako(
      "compile task residual_gate_norm_scale_shift --arch sm_90a -j 2 --shapes text-512-cfg --param BLOCK=128 "
      "--param ROWS_PER_BLOCK=1 --param CHUNKS=3 --param VEC=8 --param MIN_BLOCKS=1 --param WALK=8 --param DEPTH=3 "
      "--param STATS=1",
      kRepo);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "STATIC_CHECK: passed")) << r.out;
  EXPECT_TRUE(testsupport::has(r.out, "Layout::bc, true, 128, 8, 1, 3, 0, 1, 0, 1, 1, 1, 8, 3, 0>")) << r.out;
}

}  // namespace
}  // namespace ako::task
