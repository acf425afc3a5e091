// `ako validate` as a user runs it. The error paths run the real bench/validate with the real
// python3 of this machine (no torch on the CPU machines, no GPU anyway): unknown model, no torch
// or no GPU. The reading and verdict paths run the command against a stand-in interpreter
// ($AKO_PYTHON: a script that answers as bench/validate would, copying a fixture to --json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cpu/ako_cli_support.hpp"

namespace ako::validate {
namespace {

namespace fs = std::filesystem;
using testsupport::has;
using testsupport::run_ako;

const fs::path kSource = fs::path(AKO_SOURCE_DIR);
const fs::path kFixtures = fs::path(AKO_TEST_DIR) / "fixtures" / "validate";

// A folder of the test's own (suites run concurrently), removed at the end.
struct Tmp {
  fs::path path;
  Tmp() {
    std::string t = (fs::temp_directory_path() / "ako-validate-cli-XXXXXX").string();
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp");
    path = t;
  }
  ~Tmp() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// A stand-in interpreter: prints two progress lines, copies `fixture` to the --json argument,
// and exits with `code`; it records its arguments and PYTHONPATH.
fs::path fake_python(const fs::path& dir, const fs::path& fixture, int code) {
  const fs::path p = dir / "python3";
  std::ofstream(p) << "#!/bin/sh\n"
                   << "echo \"$@\" > '" << (dir / "args").string() << "'\n"
                   << "echo \"$PYTHONPATH\" > '" << (dir / "pythonpath").string() << "'\n"
                   << "echo 'validate: flux1: building'\necho 'validate: backend ako'\n"
                   << "echo 'a traceback line' >&2\n"
                   << "while [ $# -gt 0 ]; do [ \"$1\" = --json ] && cp '" << fixture.string() << "' \"$2\"; shift; done\n"
                   << "exit " << code << "\n";
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

// `ako ARGS` in the repository (the workspace holding bench/validate) with AKO_PYTHON set.
testsupport::Ran ako_with(const fs::path& python, const std::string& args) {
  return testsupport::run_shell("cd '" + kSource.string() + "' && AKO_PYTHON='" + python.string() + "' '" AKO_BINARY_DIR
                                "/ako' " + args);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ValidateCli, AnUnknownModelIsAUsageErrorNamingTheKnownOnes) {
  const auto r = run_ako("validate --model nosuch", kSource);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "validate: unknown model 'nosuch'; known: flux1, flux2, qwen-image, hunyuan, wan13b, wan14b, "
                         "zimage, ltx-video")) << r.out;
  EXPECT_TRUE(has(r.out, "ako validate: bench/validate refused the request")) << r.out;
}

TEST(ValidateCli, WithoutTorchOrAGpuThereIsNoVerdictAndTheMessageSaysWhy) {
  const auto r = run_ako("validate --model flux1", kSource);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "validate: torch is not importable") || has(r.out, "validate: no CUDA device visible to torch"))
      << r.out;
  EXPECT_TRUE(has(r.out, "ako validate: no verdict: torch or a CUDA device is missing")) << r.out;
  EXPECT_FALSE(has(r.out, "VALIDATE:")) << r.out;
}

TEST(ValidateCli, PrintsTheTableAndPassesOnAPassingResult) {
  Tmp tmp;
  fake_python(tmp.path, kFixtures / "flux1-pass.json", 0);
  const fs::path json = tmp.path / "out.json";
  const auto r = ako_with(tmp.path / "python3", "validate --model flux1 --steps 7 --graph --blocks 3 --json '" + json.string() + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  for (const char* want : {"  validate: flux1: building", "  validate: backend ako", "flux1 on NVIDIA H200",
                           "VALIDATE: pass (flux1)", "wrote "})
    EXPECT_TRUE(has(r.out, want)) << want << "\n" << r.out;
  EXPECT_FALSE(has(r.out, "a traceback line")) << "stderr goes to the log, shown only on failure\n" << r.out;
  const std::string args = slurp(tmp.path / "args");
  for (const char* want : {"-m validate --model flux1 --steps 7 --warmup 2 --blocks 3 --json ", "--device cuda",
                           "--payload " AKO_SOURCE_DIR "/.sgl-proof", "--graph"})
    EXPECT_TRUE(has(args, want)) << want << "\n" << args;
  EXPECT_TRUE(has(slurp(tmp.path / "pythonpath"), AKO_SOURCE_DIR "/bench")) << slurp(tmp.path / "pythonpath");
  EXPECT_TRUE(fs::exists(json));
}

TEST(ValidateCli, ExitsOneAndNamesTheFailuresOnAFailingResult) {
  Tmp tmp;
  fake_python(tmp.path, kFixtures / "flux1-fail.json", 1);
  const auto r = ako_with(tmp.path / "python3", "validate --model flux1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "FAILED: qknorm_rope: does not transfer")) << r.out;
  EXPECT_TRUE(has(r.out, "VALIDATE: FAIL (flux1)")) << r.out;
}

TEST(ValidateCli, AChildThatDiesWithoutAResultIsAnErrorShowingItsStderr) {
  Tmp tmp;
  fake_python(tmp.path, tmp.path / "none.json", 7);
  const auto r = ako_with(tmp.path / "python3", "validate --model flux1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "ako validate: bench/validate ended with exit status 7 and wrote no result")) << r.out;
  EXPECT_TRUE(has(r.out, "a traceback line")) << r.out;
}

}  // namespace
}  // namespace ako::validate
