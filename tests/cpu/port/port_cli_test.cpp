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
namespace fs = std::filesystem;

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
  for (const char* task : {" --task rmsnorm", ""}) {
    const auto r = run_ako("port --to '" + engine.string() + "'" + task, ws);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(has(r.out, "run ako mirror --from " + engine.string() + " --task rmsnorm first")) << r.out;
  }
}

// The engine is named by --to (port) and --from (mirror); --root is ako's workspace. Every
// hint names the option the user typed and a folder that exists.
TEST_F(PortCli, AnEngineThatIsNotThereIsNamedByItsOption) {
  const fs::path nowhere = dir / "no-such-engine";
  const auto port = run_ako("port --to '" + nowhere.string() + "' --task rmsnorm", ws);
  EXPECT_EQ(port.status, 2) << port.out;
  EXPECT_TRUE(has(port.out, "--to " + nowhere.string() + ": no such folder")) << port.out;
  const auto mirror = run_ako("mirror --from '" + nowhere.string() + "' --task rmsnorm", ws);
  EXPECT_EQ(mirror.status, 2) << mirror.out;
  EXPECT_TRUE(has(mirror.out, "--from " + nowhere.string() + ": no such folder")) << mirror.out;

  fs::create_directories(dir / "plain");
  const auto plain = run_ako("port --to '" + (dir / "plain").string() + "' --task rmsnorm", ws);
  EXPECT_EQ(plain.status, 2) << plain.out;
  EXPECT_TRUE(has(plain.out, "not a git repository")) << plain.out;
  EXPECT_TRUE(has(plain.out, "pass --to <repository>")) << plain.out;
  for (const auto* r : {&port, &mirror, &plain}) EXPECT_FALSE(has(r->out, "--root")) << r->out;
  EXPECT_FALSE(fs::exists(nowhere));
}

// `ako port --to harness` inside ako's own clone: a folder inside a repository is not an engine,
// and neither is a repository without the profile's layout; nothing is written in either.
TEST_F(PortCli, AFolderThatIsNotAnEngineRootIsRefused) {
  ASSERT_EQ(run_ako(mirror_args() + " --no-compile", ws).status, 0);
  git(ws, "init -q -b main");
  testing::write_text(ws / "harness/cli/main.cpp", "int main() {}\n");
  git(ws, "add -A");
  git(ws, "commit -q -m 'ako itself'");
  const auto inside = run_ako("port --to harness --task rmsnorm", ws);
  EXPECT_EQ(inside.status, 2) << inside.out;
  EXPECT_TRUE(has(inside.out, "--to harness: not the top folder of a git checkout: it lies inside the repository " +
                                  ws.string())) << inside.out;
  const auto top = run_ako("port --to . --task rmsnorm", ws);
  EXPECT_EQ(top.status, 2) << top.out;
  EXPECT_TRUE(has(top.out, "not an engine checkout of profile sglang")) << top.out;
  EXPECT_TRUE(has(top.out, "python/sglang/jit_kernel/csrc (kernel_root)")) << top.out;
  const auto in_engine = run_ako("port --to '" + (engine / "python").string() + "' --task rmsnorm", ws);
  EXPECT_EQ(in_engine.status, 2) << in_engine.out;
  EXPECT_TRUE(has(in_engine.out, "not the top folder of a git checkout")) << in_engine.out;
  for (const auto* r : {&inside, &top, &in_engine}) EXPECT_FALSE(has(r->out, "PORT:")) << r->out;
  EXPECT_EQ(git(ws, "status --porcelain"), "");
  EXPECT_EQ(status(), "");
  EXPECT_FALSE(fs::exists(ws / "solution/rmsnorm/PR.md"));
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
