// Trustworthy verdicts, the parts that need no GPU: every offending kernel of tests/attacks/
// goes through the real pipeline (`ako compile` / `ako run` with --solution) and is refused
// with its exact finding, the honest solution is not, a task's solution.allow permits a
// check (the bandwidth rule on timings is pipeline's: tests/cpu/pipeline/verdict_test.cpp).
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;

Ran ako(const std::string& args, const fs::path& cwd = AKO_SOURCE_DIR) { return ako::testsupport::run_ako(args, cwd); }

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

Ran compile_attack(const std::string& name) {
  return ako("compile task rmsnorm --arch sm_90a --solution tests/attacks/" + name + ".cuh");
}

// Every line of the compile output that reports a finding names this check and this text.
void expect_only(const Ran& r, const std::string& check, const std::string& what) {
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(has(r.out, "STATIC_CHECK: refused")) << r.out;
  const int findings = count(r.out, "static check REFUSED:");
  EXPECT_GT(findings, 0) << r.out;
  EXPECT_EQ(count(r.out, "[" + check + "]"), findings) << r.out;  // no other check fires
  EXPECT_TRUE(has(r.out, what)) << r.out;
  EXPECT_TRUE(has(r.out, "tests/attacks/")) << r.out;                // the file is named
  EXPECT_TRUE(has(r.out, ": rmsnorm_kernel<")) << r.out;             // and the kernel
}

TEST(Attacks, HonestSolutionPassesTheStaticChecks) {
  const Ran r = ako("compile task rmsnorm --arch sm_90a");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "STATIC_CHECK: passed\n")) << r.out;
  EXPECT_FALSE(has(r.out, "static check ")) << r.out;
}

TEST(Attacks, ResultCacheInADeviceGlobal) {
  expect_only(compile_attack("result_cache"), "device_globals",
              "mutable __device__ global 'ako_attack_last_fingerprint' (.global .align 8 .u64 "
              "ako_attack_last_fingerprint;): the kernel stores to it");
}

TEST(Attacks, GlobaltimerPhaseDetection) {
  expect_only(compile_attack("globaltimer"), "clock", ": reads %globaltimer [clock]");
}

TEST(Attacks, L2EvictLastPersistence) {
  const Ran r = compile_attack("l2_evict_last");
  expect_only(r, "l2_persist", "uses L2::evict_last (createpolicy.fractional.L2::evict_last.b64)");
  EXPECT_TRUE(has(r.out, "passes a runtime L2 cache policy (ld.global.L2::cache_hint.u16)")) << r.out;
}

TEST(Attacks, L2DiscardOfTheOutput) {
  expect_only(compile_attack("l2_discard"), "l2_discard", "executes discard.global.L2 [l2_discard]");
}

TEST(Attacks, BigLocalArray) {
  expect_only(compile_attack("big_local"), "local_memory", "uses a 4096 byte stack frame (budget 256 bytes)");
}

TEST(Attacks, DeviceLaunchDoesNotEvenBuild) {
  const Ran r = compile_attack("device_launch");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "Unresolved extern function 'cudaGetParameterBufferV2'")) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: no")) << r.out;
}

// The runtime attacks and faults (guard bands, determinism, constant output, poisoned timed
// outputs, fault taxonomy, precision against the fp64 oracle, with its honest control) must
// build and pass the static checks: only the GPU can catch them (tests/gpu/attacks_test.cpp
// and tests/gpu/precision_test.cpp assert their verdicts there).
class RuntimeAttack : public ::testing::TestWithParam<const char*> {};

TEST_P(RuntimeAttack, BuildsForSm90aAndPassesTheStaticChecks) {
  const Ran r = compile_attack(GetParam());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(has(r.out, "STATIC_CHECK: passed\n")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Attacks, RuntimeAttack,
                         ::testing::Values("oob_write_after", "oob_write_before", "uninit_smem", "constant_output",
                                           "skip_repeated", "misaligned", "out_of_resources", "bf16_accumulate",
                                           "reordered_sum"));

TEST(Attacks, RunRefusesBeforeTheGpuWithFailedVerdicts) {
  const fs::path json = fs::temp_directory_path() / "ako-attacks-run.json";
  fs::remove(json);
  const Ran r = ako("run task rmsnorm --arch sm_90a --shapes text-512 --solution tests/attacks/globaltimer.cuh --json '" +
                    json.string() + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "STATIC_CHECK: refused")) << r.out;
  EXPECT_TRUE(has(r.out, "nothing ran on the GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "CORRECT: no")) << r.out;
  std::ifstream in(json);
  ASSERT_TRUE(in) << r.out;
  const auto j = nlohmann::json::parse(in);
  ASSERT_FALSE(j["static_findings"].empty());
  EXPECT_EQ(j["static_findings"][0]["check"], "clock");
  EXPECT_EQ(j["static_findings"][0]["file"], "tests/attacks/globaltimer.cuh");
  int compare = 0;
  for (const auto& c : j["cases"]) {
    if (c["kind"] != "compare") {
      EXPECT_EQ(c["verdict"], "skipped");
      continue;
    }
    ++compare;
    EXPECT_EQ(c["verdict"], "failed");
    EXPECT_EQ(c["fault"], "static_check");
    EXPECT_EQ(c["reason"].get<std::string>().rfind("static check: clock rmsnorm_kernel<", 0), 0u) << c["reason"];
  }
  EXPECT_EQ(compare, 4);  // text-512 x {bf16, fp16} x {weight, noweight}
  EXPECT_EQ(j["summary"]["failed"], 4);
}

TEST(Attacks, TaskAllowPermitsACheck) {
  const fs::path ws = ako::testsupport::copy_workspace("allow");
  const fs::path spec = ws / "tasks/rmsnorm/task.json";
  nlohmann::json t = nlohmann::json::parse(std::ifstream(spec));
  t["solution"]["allow"] = {"clock"};
  std::ofstream(spec) << t.dump(2);
  const std::string attack = (fs::path(AKO_SOURCE_DIR) / "tests/attacks/globaltimer.cuh").string();
  const Ran r = ako("compile task rmsnorm --arch sm_90a --solution '" + attack + "'", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "static check (allowed):")) << r.out;
  EXPECT_TRUE(has(r.out, "[clock, allowed by the task]")) << r.out;
  EXPECT_TRUE(has(r.out, "STATIC_CHECK: passed (")) << r.out;

  t["solution"]["allow"] = {"clocks"};
  std::ofstream(spec) << t.dump(2);
  const Ran bad = ako("compile task rmsnorm --arch sm_90a", ws);
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_TRUE(has(bad.out, "field 'solution.allow[0]': expected a static check")) << bad.out;
}

}  // namespace
