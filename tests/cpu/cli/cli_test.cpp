// The ako binary as a user meets it, on a machine without a GPU: help, usage errors, exit
// codes, spec errors, compile errors, and `run` saying plainly that it has no GPU.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "exec/client/gpu_probe.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;

Ran ako(const std::string& args, const fs::path& cwd = AKO_SOURCE_DIR) { return ako::testsupport::run_ako(args, cwd); }

// A throw-away workspace: a copy of the real task, input and solution.
fs::path make_workspace(const std::string& name) { return ako::testsupport::copy_workspace(name); }

TEST(Cli, HelpTellsCommandsAndExitCodes) {
  const Ran r = ako("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* w : {"run", "compile", "Exit status", "0 every case correct", "2 usage"})
    EXPECT_TRUE(has(r.out, w)) << w << "\n" << r.out;
  const Ran rh = ako("run --help");
  EXPECT_EQ(rh.status, 0);
  for (const char* w : {"--json", "--hot", "--arch", "--seed", "--case-timeout", "--solution"})
    EXPECT_TRUE(has(rh.out, w)) << w;
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(ako("").status, 2);
  EXPECT_EQ(ako("frobnicate").status, 2);
  EXPECT_EQ(ako("run").status, 2);
  EXPECT_EQ(ako("run task").status, 2);
  const Ran r = ako("run tusk rmsnorm");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "expected 'task NAME'")) << r.out;
  EXPECT_EQ(ako("run task rmsnorm --color sometimes").status, 2);
  const Ran p = ako("run task rmsnorm --param BLOCK=big");
  EXPECT_EQ(p.status, 2);
  EXPECT_TRUE(has(p.out, "integer")) << p.out;
}

TEST(Cli, UnknownTaskNamesWhatExists) {
  const Ran r = ako("run task nosuchtask");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "nosuchtask")) << r.out;
}

TEST(Cli, UnknownShapeListsTheKnownOnes) {
  const Ran r = ako("compile task rmsnorm --shapes flux9");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "flux9")) << r.out;
  EXPECT_TRUE(has(r.out, "flux1-single")) << r.out;
}

TEST(Cli, NoWorkspaceIsExplained) {
  const Ran r = ako("run task rmsnorm", "/");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "--root")) << r.out;
}

TEST(Cli, CompileReportsResourcesForSm90a) {
  const Ran r = ako("compile task rmsnorm --arch sm_90a");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(has(r.out, "rmsnorm_kernel<")) << r.out;
  EXPECT_TRUE(has(r.out, "rmsnorm_reference<")) << r.out;
  EXPECT_TRUE(has(r.out, "regs")) << r.out;
}

TEST(Cli, MalformedSpecNamesFileAndField) {
  const fs::path ws = make_workspace("badspec");
  auto doc = nlohmann::json::parse(ako::read_file(ws / "tasks/rmsnorm/task.json"));
  doc["dtypes"] = {"bf16", "bf8"};
  ako::write_file_atomically(ws / "tasks/rmsnorm/task.json", doc.dump(2));
  const Ran r = ako("compile task rmsnorm", ws);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "task.json")) << r.out;
  EXPECT_TRUE(has(r.out, "dtypes")) << r.out;
  EXPECT_TRUE(has(r.out, "bf8")) << r.out;
}

TEST(Cli, CompileErrorShowsFileAndLine) {
  const fs::path ws = make_workspace("compile-error");
  const fs::path sol = ws / "broken.cuh";
  std::ofstream(sol) << "#include <cuda_bf16.h>\n"
                        "template <typename T, bool W, int B, int V, int R, int C>\n"
                        "__global__ void rmsnorm_kernel(T* out, const T* x, const T* w, int rows, int cols, float eps) {\n"
                        "  this is not C++;\n"
                        "}\n";
  const Ran r = ako("run task rmsnorm --arch sm_90a --solution broken.cuh --json out.json", ws);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "COMPILED: no")) << r.out;
  EXPECT_TRUE(has(r.out, "broken.cuh(4)")) << r.out;
  const auto j = nlohmann::json::parse(ako::read_file(ws / "out.json"));
  EXPECT_FALSE(j["summary"]["compiled"].get<bool>());
  EXPECT_EQ(j["error"], "compilation failed");
}

TEST(Cli, RunWithoutGpuCompilesThenSaysSo) {
  if (ako::exec::probe_gpu().available) GTEST_SKIP() << "a GPU is present; this test is for GPU-less machines";
  const fs::path ws = make_workspace("nogpu");
  const Ran r = ako("run task rmsnorm --json out.json", ws);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "no GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(has(r.out, "CORRECT: skipped (0/40 cases correct, 0 incorrect, 0 failed, 40 skipped)")) << r.out;
  const auto j = nlohmann::json::parse(ako::read_file(ws / "out.json"));
  ASSERT_EQ(j["cases"].size(), 64u);  // 40 compare + 24 reference checks, each listed as not run
  EXPECT_EQ(j["cases"][0]["verdict"], "skipped");
  EXPECT_EQ(j["cases"][0]["reason"], "not run: no GPU");
  EXPECT_EQ(j["schema"], "ako.run/1");
  EXPECT_TRUE(j["summary"]["compiled"].get<bool>());
  EXPECT_TRUE(has(j["error"].get<std::string>(), "no GPU"));
  EXPECT_GT(j["builds"].size(), 0u);
}

TEST(Cli, ASolutionThatIsNotAFileIsRefused) {
  const fs::path ws = make_workspace("solution-dir");
  const Ran r = ako("compile task rmsnorm --solution solution/rmsnorm", ws);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--solution solution/rmsnorm: not a file")) << r.out;
  EXPECT_FALSE(has(r.out, "error:")) << "nothing was compiled:\n" << r.out;
}

// An empty solution, or one without the kernel: the error leads with that, and NVRTC's errors
// about the template instantiations ako asked for (__nv_name_map) are not shown.
TEST(Cli, ASolutionWithoutTheKernelSaysSoFirst) {
  const fs::path ws = make_workspace("no-kernel");
  std::ofstream(ws / "empty.cuh") << "// nothing yet\n";
  std::ofstream(ws / "other.cuh") << "#include <cuda_bf16.h>\n__global__ void something_else() {}\n";
  for (const char* file : {"empty.cuh", "other.cuh"}) {
    const Ran r = ako(std::string("compile task rmsnorm --arch sm_90a --solution ") + file, ws);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(has(r.out, std::string("kernel `rmsnorm_kernel` is not defined in ") + file)) << r.out;
    EXPECT_FALSE(has(r.out, "__nv_name_map")) << r.out;
    EXPECT_LT(std::count(r.out.begin(), r.out.end(), '\n'), 30) << r.out;
    EXPECT_TRUE(has(r.out, "COMPILED: no")) << r.out;
  }
}

TEST(Cli, AnArchNvrtcDoesNotKnowIsNamedOnce) {
  const Ran r = ako("compile task rmsnorm --arch sm_999");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "arch 'sm_999' is not one this NVRTC")) << r.out;
  EXPECT_TRUE(has(r.out, "sm_90")) << "the supported archs are listed\n" << r.out;
  EXPECT_FALSE(has(r.out, "NVRTC_ERROR_INVALID_OPTION")) << r.out;
  EXPECT_EQ(r.out.find("sm_999"), r.out.rfind("sm_999")) << "said once:\n" << r.out;
  EXPECT_EQ(ako("compile task rmsnorm --arch sm_9x").status, 2);
}

TEST(Cli, JobsMustBePositive) {
  const fs::path ws = make_workspace("jobs");  // a parse error stops each; never the real repository
  for (const char* cmd : {"compile task rmsnorm", "run task rmsnorm", "tune task rmsnorm", "iterate -m x",
                          "gate --baseline bench/baseline.json"})
    for (const char* jobs : {" -j 0", " -j -3", " --jobs=0"}) {
      const Ran r = ako(std::string(cmd) + jobs, ws);
      EXPECT_EQ(r.status, 2) << cmd << jobs << "\n" << r.out;
      EXPECT_TRUE(has(r.out, "--jobs")) << cmd << jobs << "\n" << r.out;
    }
}

// A number out of range is said plainly: CLI11's own checks printed DBL_MAX in full
// ("Value -1 not in range 0.000000 to 179769313486231570814527...").
TEST(Cli, NumbersOutOfRangeAreSaidPlainly) {
  const fs::path ws = make_workspace("numbers");
  const Ran trials = ako("run task rmsnorm --trials 0", ws);
  EXPECT_EQ(trials.status, 2) << trials.out;
  EXPECT_TRUE(has(trials.out, "--trials: expected more than 0, got 0")) << trials.out;
  const Ran timeout = ako("tune task rmsnorm --compile-timeout -1", ws);
  EXPECT_EQ(timeout.status, 2) << timeout.out;
  EXPECT_TRUE(has(timeout.out, "--compile-timeout: expected 0 or more, got -1")) << timeout.out;
  const Ran word = ako("run task rmsnorm --max-time soon", ws);
  EXPECT_EQ(word.status, 2) << word.out;
  const Ran nan = ako("run task rmsnorm --max-time nan", ws);
  EXPECT_EQ(nan.status, 2) << nan.out;
  for (const Ran* r : {&trials, &timeout, &word, &nan}) EXPECT_FALSE(has(r->out, "179769313")) << r->out;
  EXPECT_EQ(ako("tune task rmsnorm --compile-timeout 0 --help", ws).status, 0);
}

TEST(Cli, VersionShowsTheCudaHeadersItsHelpPromises) {
  const Ran help = ako("--help");
  EXPECT_TRUE(has(help.out, "the CUDA headers in use")) << help.out;
  const Ran r = ako("version");
  EXPECT_EQ(r.status, 0) << r.out;
  for (const char* want : {"ako 0.", "NVRTC 1", "CUDA headers 1", "/include)", "cache "})
    EXPECT_TRUE(has(r.out, want)) << want << "\n" << r.out;
}

TEST(Cli, TheUsageLineReadsAsTyped) {
  for (const char* cmd : {"run", "compile", "tune"}) {
    const Ran r = ako(std::string(cmd) + " --help");
    EXPECT_TRUE(has(r.out, std::string("Usage: ako ") + cmd + " [OPTIONS] [task] NAME")) << r.out;
    EXPECT_FALSE(has(r.out, "(1x)")) << r.out;
  }
}

TEST(Cli, OutputHasNoColourWhenNotATerminal) {
  const Ran r = ako("compile task rmsnorm --arch sm_90a");
  EXPECT_FALSE(has(r.out, "\x1b[")) << r.out;
}

// Without the peers' headers the baseline is said to be absent, with the fix; the solution
// still compiles and the command still succeeds (a baseline is never the verdict).
TEST(Cli, CompileSaysABaselineIsNotInstalledAndGoesOn) {
  const fs::path ws = make_workspace("no-peers");
  const Ran r = ako("compile task rmsnorm --arch sm_90a --shapes flux1-single", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "baseline flashinfer: not installed: peers/flashinfer-python-0.7.2/include/flashinfer/"
                         "norm.cuh is missing; run scripts/fetch-peers.sh"))
      << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
}

// The FlashInfer baseline compiles with NVRTC for sm_90a as its headers ship (scripts/setup.sh
// fetches them; without them the run goes on and says why).
TEST(Cli, CompileBuildsTheFlashInferBaselineForSm90a) {
  if (!std::filesystem::exists(std::filesystem::path(AKO_SOURCE_DIR) / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh"))
    GTEST_SKIP() << "FlashInfer's headers are not installed (scripts/fetch-peers.sh; needs PyPI)";
  const Ran r = ako("compile task rmsnorm --arch sm_90a --shapes flux1-single");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "baseline flashinfer  flashinfer::norm::RMSNormKernel<8, __nv_bfloat16>")) << r.out;
  EXPECT_TRUE(has(r.out, "baseline flashinfer  flashinfer::norm::RMSNormKernel<8, __half>")) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
}

}  // namespace
