// `ako mirror` and `ako port` as a user runs them: summary lines, exit codes, the PR artifact.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"
#include "cpu/port/engine_fixture.hpp"

namespace ako::port {
namespace {

using ako::testsupport::has;
using ako::testsupport::run_ako;
using testing::EngineFixture;
using testing::slurp;

class PortCli : public EngineFixture {
 protected:
  std::string mirror_args() {
    return "mirror --from '" + engine.string() + "' --task rmsnorm --path " + testing::kMirrorPath;
  }
};

TEST_F(PortCli, MirrorThenDryRunThenPortThenUnchanged) {
  const auto m = run_ako(mirror_args(), ws);
  ASSERT_EQ(m.status, 0) << m.out;
  EXPECT_TRUE(has(m.out, "struct ToyRMSNormKernel")) << m.out;
  EXPECT_TRUE(has(m.out, "NVRTC: the device part compiles for sm_90a")) << m.out;

  const auto dry = run_ako("port --to '" + engine.string() + "' --dry-run", ws);
  ASSERT_EQ(dry.status, 0) << dry.out;
  EXPECT_TRUE(has(dry.out, "+++ b/python/sglang/jit_kernel/csrc/diffusion/rmsnorm.cuh")) << dry.out;
  EXPECT_TRUE(has(dry.out, "would create ako/rmsnorm-")) << dry.out;
  EXPECT_TRUE(has(dry.out, "PORT: dry-run (nothing written)"));
  EXPECT_EQ(status(), "");

  const auto port = run_ako("port --to '" + engine.string() + "' --task rmsnorm --branch ako/try", ws);
  ASSERT_EQ(port.status, 0) << port.out;
  EXPECT_TRUE(has(port.out, "PORT: ported (2 file(s))")) << port.out;
  EXPECT_EQ(branch(), "ako/try");
  const std::string pr = slurp(ws / "solution/rmsnorm/PR.md");
  EXPECT_TRUE(has(pr, "## Missing from this artifact")) << pr;
  EXPECT_TRUE(has(pr, "no `ako iterate` run")) << pr;
  EXPECT_TRUE(has(pr, "| cols-3072 | `cols <= 3072` |")) << pr;

  const auto again = run_ako("port --to '" + engine.string() + "'", ws);
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(has(again.out, "PORT: unchanged")) << again.out;
}

TEST_F(PortCli, ARefusalExitsOneWithTheFix) {
  ASSERT_EQ(run_ako(mirror_args() + " --no-compile", ws).status, 0);
  testing::write_text(engine / "scratch.py", "x = 1\n");
  const auto r = run_ako("port --to '" + engine.string() + "'", ws);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "PORT: refused (dirty-engine)")) << r.out;
  EXPECT_TRUE(has(r.out, "  scratch.py")) << r.out;
  EXPECT_TRUE(has(r.out, "fix: git -C")) << r.out;
}

TEST_F(PortCli, PortWithoutMirrorIsAnErrorSayingWhatToRun) {
  const auto r = run_ako("port --to '" + engine.string() + "' --task rmsnorm", ws);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "run ako mirror --from")) << r.out;
}

TEST_F(PortCli, ThePrArtifactTakesTheTableFromAResultFile) {
  ASSERT_EQ(run_ako(mirror_args() + " --no-compile", ws).status, 0);
  testing::write_text(dir / "run.json", R"({"schema": "ako.run/1", "device": {"name": "NVIDIA H100 80GB HBM3"},
    "cases": [{"kind": "compare", "shape": "flux1-single", "dtype": "bf16", "flags": {"weight": true},
               "reference_time": {"median_us": 30.5}, "solution_time": {"median_us": 20.25},
               "speedup": 1.506, "gbps": 2800.4, "pct_copy_bw": 93.1, "verdict": "correct"},
              {"kind": "reference_check", "shape": "check-1x128"}],
    "summary": {"cases": 1, "correct": 1, "speedup": 1.506, "geomean_speedup": 1.506}})");
  const auto r = run_ako("port --to '" + engine.string() + "' --result '" + (dir / "run.json").string() + "'", ws);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string pr = slurp(ws / "solution/rmsnorm/PR.md");
  EXPECT_TRUE(has(pr, "| flux1-single | bf16 | weight  | 30.50 | 20.25 | 1.51x | 2800 | 93.1 | correct |")) << pr;
  EXPECT_TRUE(has(pr, "Device: NVIDIA H100 80GB HBM3")) << pr;
  EXPECT_FALSE(has(pr, "check-1x128"));
}

}  // namespace
}  // namespace ako::port
