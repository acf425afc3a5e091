// Trustworthy verdicts, the parts that need no GPU: every offending kernel of tests/attacks/
// goes through the real pipeline (`ako compile` / `ako run` with --solution) and is refused
// with its exact finding, the honest solution is not, a task's solution.allow permits a
// check, and a timing faster than the copy bandwidth allows is refused (refuse_implausible).
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "pipeline/run_plan.hpp"

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
// outputs, fault taxonomy) must build and pass the static checks: only the GPU can catch them
// (tests/gpu/attacks_test.cpp asserts their verdicts there).
class RuntimeAttack : public ::testing::TestWithParam<const char*> {};

TEST_P(RuntimeAttack, BuildsForSm90aAndPassesTheStaticChecks) {
  const Ran r = compile_attack(GetParam());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILED: yes")) << r.out;
  EXPECT_TRUE(has(r.out, "STATIC_CHECK: passed\n")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Attacks, RuntimeAttack,
                         ::testing::Values("oob_write_after", "oob_write_before", "uninit_smem", "constant_output",
                                           "skip_repeated", "misaligned", "out_of_resources"));

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

// --- implausible timings -------------------------------------------------------------------

ako::CaseResult timed_case(double bytes, double median_us, bool cold = true) {
  ako::CaseResult c;
  c.verdict = ako::Verdict::correct;
  c.bytes = bytes;
  ako::TimingStats s;
  s.median_us = median_us;
  s.cold_l2 = cold;
  c.solution_time = s;
  ako::TimingStats ref = s;
  ref.median_us = 2 * median_us;
  c.reference_time = ref;
  return c;
}

TEST(Implausible, FasterThanCopyBandwidthIsRefused) {
  // 56.6 MB in 15 us is 3775 GB/s: 126% of a 3000 GB/s device.
  ako::CaseResult c = timed_case(56.6e6, 15.0);
  ako::pipeline::derive_rates(c, 3000);
  ASSERT_GT(c.speedup, 0);
  EXPECT_TRUE(ako::pipeline::refuse_implausible(c, 3000));
  EXPECT_EQ(c.verdict, ako::Verdict::failed);
  EXPECT_EQ(c.fault, "implausible");
  EXPECT_EQ(c.reason.rfind("implausible: 3773 GB/s for the 56.60 MB", 0), 0u) << c.reason;
  EXPECT_TRUE(has(c.reason, "126% of the measured copy bandwidth 3000 GB/s (limit 110%")) << c.reason;
  EXPECT_EQ(c.speedup, 0);
}

TEST(Implausible, HonestFastKernelsPass) {
  // bench/RESULTS.md: the best honest kernels measured 100.9% of copy bandwidth on the H100.
  ako::CaseResult c = timed_case(3027e9 * 1.009 * 20e-6, 20.0);
  EXPECT_FALSE(ako::pipeline::refuse_implausible(c, 3027));
  EXPECT_EQ(c.verdict, ako::Verdict::correct);
  // Just under the limit still passes; just over it does not.
  ako::CaseResult edge = timed_case(3000e9 * 1.099 * 10e-6, 10.0);
  EXPECT_FALSE(ako::pipeline::refuse_implausible(edge, 3000));
  ako::CaseResult over = timed_case(3000e9 * 1.11 * 10e-6, 10.0);
  EXPECT_TRUE(ako::pipeline::refuse_implausible(over, 3000));
}

TEST(Implausible, OnlyCorrectColdTimedCasesWithABandwidth) {
  ako::CaseResult hot = timed_case(56.6e6, 5.0, /*cold=*/false);  // data may come from L2
  EXPECT_FALSE(ako::pipeline::refuse_implausible(hot, 3000));
  ako::CaseResult wrong = timed_case(56.6e6, 5.0);
  wrong.verdict = ako::Verdict::incorrect;
  EXPECT_FALSE(ako::pipeline::refuse_implausible(wrong, 3000));
  EXPECT_EQ(wrong.verdict, ako::Verdict::incorrect);
  ako::CaseResult unknown_bw = timed_case(56.6e6, 5.0);
  EXPECT_FALSE(ako::pipeline::refuse_implausible(unknown_bw, 0));
  ako::CaseResult untimed;
  untimed.verdict = ako::Verdict::correct;
  untimed.bytes = 1e6;
  EXPECT_FALSE(ako::pipeline::refuse_implausible(untimed, 3000));
}

}  // namespace
