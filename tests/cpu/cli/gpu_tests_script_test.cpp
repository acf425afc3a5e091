// scripts/gpu-tests.sh, the GPU suite made to fit one device call: the correctness tests a gtest
// process each, several at a time, longest first, then the timing tests alone once nothing of the
// first phase is left, from a carried kernel cache when there is one. Driven here with a stand-in
// for the test binary (tests/fixtures/gpu_tests_script/fake_gtest.py) that passes, fails, skips,
// hangs or leaves a process behind as told, and, for its list of timing tests, against the real
// ako_gpu_tests. And scripts/warm-gpu-test-cache.sh, which makes that cache here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cpu/ako_cli_support.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;
using ako::testsupport::run_shell;

const std::string kFake = AKO_SOURCE_DIR "/tests/fixtures/gpu_tests_script/fake_gtest.py";

struct Suite {
  Ran ran;
  std::vector<std::string> order;  // the tests in the order they ran
};

// gpu-tests.sh over FAKE_TESTS (`Suite.Name=ok|fail|skip|hang ...`), `env` added before it; the
// kernel cache in the run's own folder, and the tree's ako-cache-x not unpacked unless `env` says.
Suite run_suite(const std::string& name, const std::string& tests, const std::string& env = "") {
  const fs::path out = fs::temp_directory_path() / ("ako-gpu-tests-sh-" + name);
  fs::remove_all(out);
  fs::create_directories(out);
  const fs::path ran = out / "ran.txt";
  Suite s;
  s.ran = run_shell("FAKE_TESTS='" + tests + "' FAKE_RAN='" + ran.string() + "' TESTS='" + kFake + "' OUT='" +
                    (out / "o").string() + "' AKO_CACHE_DIR='" + (out / "cache").string() + "' NO_CARRIED_CACHE=1 JOBS=2 " +
                    env + " '" AKO_SOURCE_DIR "/scripts/gpu-tests.sh'");
  std::ifstream in(ran);
  for (std::string line; std::getline(in, line);) s.order.push_back(line);
  return s;
}

TEST(GpuTestsScript, EveryTestRunsOnceAndTheTimingTestsAloneAfterTheOthers) {
  const Suite s = run_suite("once", "A.one=ok GateGpu.Gate=ok A.two=ok B.three=skip KillTune.Kill=ok B.four=ok");
  EXPECT_EQ(s.ran.status, 0) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "6 tests; 4 a process each, 2 at a time, longest first")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "2 timed alone")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "passed 5, skipped 1, failed 0, of 6")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "1 no GPU here")) << "the skip reason, counted:\n" << s.ran.out;
  ASSERT_EQ(s.order.size(), 6u) << s.ran.out;
  // The two timing tests last, in the suite's order, after every other test has ended.
  EXPECT_EQ(s.order[4], "GateGpu.Gate");
  EXPECT_EQ(s.order[5], "KillTune.Kill");
  std::vector<std::string> sorted = s.order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a test ran twice";
}

TEST(GpuTestsScript, AFailedTestFailsTheRunAndIsNamed) {
  const Suite s = run_suite("fail", "A.one=ok A.two=fail GateGpu.Gate=ok");
  EXPECT_EQ(s.ran.status, 1) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "passed 2, skipped 0, failed 1, of 3")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "\n  FAILED A.two\n")) << s.ran.out;
  const Suite t = run_suite("fail-timed", "A.one=ok GateGpu.Gate=fail");
  EXPECT_EQ(t.ran.status, 1) << t.ran.out;
  EXPECT_TRUE(has(t.ran.out, "\n  FAILED GateGpu.Gate\n")) << t.ran.out;
}

TEST(GpuTestsScript, AHangingTestIsCutByItsPhaseTimeoutAndNamed) {
  const Suite s = run_suite("hang", "A.one=ok A.hang=hang GateGpu.Gate=ok", "PAR_TIMEOUT=2");
  EXPECT_EQ(s.ran.status, 1) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "cut by the first phase's timeout, during: A.hang")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "passed 2, skipped 0, failed 0, of 3")) << "the others still ran:\n" << s.ran.out;
}

TEST(GpuTestsScript, AFilterRunsPartOfTheSuiteWithTheTimingTestsStillAlone) {
  const Suite s = run_suite("filter", "A.one=ok GateGpu.Gate=ok B.two=ok GateGpu.Other=ok", "FILTER='A.*:GateGpu.Gate'");
  EXPECT_EQ(s.ran.status, 0) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "2 tests; 1 a process each, 2 at a time")) << s.ran.out;
  ASSERT_EQ(s.order.size(), 2u) << s.ran.out;
  EXPECT_EQ(s.order[1], "GateGpu.Gate");
}

TEST(GpuTestsScript, TheLongestTestsStartFirstAndEachRunRecordsItsLengths) {
  // Lengths from an earlier run; a test it does not list (new, or renamed) counts as the longest.
  const fs::path seconds = fs::temp_directory_path() / "ako-gpu-tests-sh-seconds.txt";
  std::ofstream(seconds) << "5.0 A.c\n50.0 A.b\n20.0 A.a\n";
  const Suite s =
      run_suite("longest", "A.a=ok A.b=ok A.c=ok A.d=slow GateGpu.Gate=ok", "JOBS=1 TEST_SECONDS='" + seconds.string() + "'");
  EXPECT_EQ(s.ran.status, 0) << s.ran.out;
  EXPECT_EQ(s.order, (std::vector<std::string>{"A.d", "A.b", "A.a", "A.c", "GateGpu.Gate"})) << s.ran.out;
  // This run's lengths, longest first: the order the next run starts from.
  std::ifstream in(fs::temp_directory_path() / "ako-gpu-tests-sh-longest/o/gpu-test-seconds.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << s.ran.out;
  EXPECT_EQ(lines[0], "1.0 A.d");
  EXPECT_TRUE(has(lines[1], "0.0 ")) << lines[1];
}

TEST(GpuTestsScript, TestsThePhaseHasNoTimeLeftForAreNamedAndFailTheRun) {
  const Suite s = run_suite("not-run", "A.hang=hang A.two=ok GateGpu.Gate=ok", "JOBS=1 PAR_TIMEOUT=2");
  EXPECT_EQ(s.ran.status, 1) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "during: A.hang")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "not started, the first phase's time spent: A.two")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "passed 1, skipped 0, failed 0, of 3")) << s.ran.out;
  EXPECT_EQ(s.order, (std::vector<std::string>{"A.hang", "GateGpu.Gate"})) << s.ran.out;
}

TEST(GpuTestsScript, AProcessATestLeftBehindIsKilledBeforeTheTimingTestsAndNamed) {
  // A test's child in a session of its own outlives the test's process and its timeout's group;
  // the timing tests must not share the GPU with it.
  const fs::path pid_file = fs::temp_directory_path() / "ako-gpu-tests-sh-linger.pid";
  fs::remove(pid_file);
  const Suite s = run_suite("linger", "A.one=linger GateGpu.Gate=ok", "FAKE_LINGER_PID='" + pid_file.string() + "'");
  EXPECT_EQ(s.ran.status, 0) << s.ran.out;
  std::ifstream in(pid_file);
  std::string pid;
  std::getline(in, pid);
  ASSERT_FALSE(pid.empty());
  EXPECT_TRUE(has(s.ran.out, "left alive after the first phase, killed: " + pid + " ")) << s.ran.out;
  const Ran alive = run_shell("[ -e /proc/" + pid + " ] && ! grep -q '^[0-9]* ([^)]*) Z' /proc/" + pid + "/stat");
  EXPECT_NE(alive.status, 0) << "pid " << pid << " still runs";
}

// FAKE_SPANS's lines (`+name` at a test's start, `-name` at its end) of a run with `env`.
std::vector<std::string> spans_of(const std::string& name, const std::string& tests, const std::string& env, Ran* ran) {
  const fs::path spans = fs::temp_directory_path() / ("ako-gpu-tests-sh-" + name + ".spans");
  fs::remove(spans);
  *ran = run_suite(name, tests, "FAKE_SPANS='" + spans.string() + "' " + env).ran;
  std::vector<std::string> lines;
  std::ifstream in(spans);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(GpuTestsScript, TestsThatMakeTheGpuFaultRunAfterTheOthersOneAtATime) {
  // By name the fault tests would start first; JOBS=2 would run both side by side.
  Ran ran;
  const auto spans = spans_of("fault", "OracleBlame.Trap=slow Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/trap=slow "
                              "Z.one=slow Z.two=slow GateGpu.Gate=ok", "", &ran);
  EXPECT_EQ(ran.status, 0) << ran.out;
  EXPECT_TRUE(has(ran.out, "2 a process each, 2 at a time, longest first")) << ran.out;
  EXPECT_TRUE(has(ran.out, "then 2 that make the GPU fault one at a time")) << ran.out;
  ASSERT_EQ(spans.size(), 10u) << ran.out;
  std::vector<std::string> first(spans.begin(), spans.begin() + 4), rest(spans.begin() + 4, spans.end());
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"+Z.one", "+Z.two", "-Z.one", "-Z.two"})) << "the others first";
  EXPECT_EQ(rest, (std::vector<std::string>{"+OracleBlame.Trap", "-OracleBlame.Trap",
                                            "+Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/trap",
                                            "-Rmsnorm/BrokenKernel.IsCaughtAndTheRunGoesOn/trap", "+GateGpu.Gate",
                                            "-GateGpu.Gate"}));
}

TEST(GpuTestsScript, TheCopyBandwidthIsMeasuredAloneBeforeAnyTest) {
  const std::string ako = "AKO_BIN='" AKO_SOURCE_DIR "/tests/fixtures/gpu_tests_script/fake_ako.sh' ";
  Ran ran;
  const auto spans = spans_of("copy", "A.one=ok A.two=ok GateGpu.Gate=ok", ako + "FAKE_GBS=4321.5", &ran);
  EXPECT_EQ(ran.status, 0) << ran.out;
  EXPECT_TRUE(has(ran.out, "copy bandwidth 4321.5 GB/s, measured alone before the first phase")) << ran.out;
  ASSERT_GE(spans.size(), 2u) << ran.out;
  EXPECT_TRUE(has(spans[0], "+ako run task ") && has(spans[0], " --remeasure-bandwidth")) << spans[0];
  EXPECT_EQ(spans[1], "-ako");
  // A measurement that fails is said, and the tests still run (each ako then measures its own).
  const auto failed = spans_of("copy-failed", "A.one=ok GateGpu.Gate=ok", ako + "FAKE_GBS=", &ran);
  EXPECT_EQ(ran.status, 0) << ran.out;
  EXPECT_TRUE(has(ran.out, "the measurement ahead failed")) << ran.out;
  EXPECT_EQ(failed.size(), 6u) << ran.out;
}

TEST(GpuTestsScript, ACarriedKernelCacheIsUnpackedFirstAndCounted) {
  // scripts/warm-gpu-test-cache.sh's folder: cache.tar.xz of cache entries, and its MANIFEST.
  const fs::path x = fs::temp_directory_path() / "ako-gpu-tests-sh-carried-cache-x";
  const fs::path cache = fs::temp_directory_path() / "ako-gpu-tests-sh-cache";
  fs::remove_all(x);
  fs::remove_all(cache);
  fs::create_directories(x / "src/ab");
  for (const char* e : {"ab/1.cubin", "ab/1.ptx", "ab/2.cubin"}) std::ofstream(x / "src" / e) << e;
  std::ofstream(x / "MANIFEST") << "made 2026-12-01T23:59Z by scripts/warm-gpu-test-cache.sh\n";
  ASSERT_EQ(run_shell("tar cJf '" + (x / "cache.tar.xz").string() + "' -C '" + (x / "src").string() + "' .").status, 0);
  const std::string env = "CARRIED_CACHE='" + x.string() + "' AKO_CACHE_DIR='" + cache.string() + "' NO_CARRIED_CACHE=";
  const Suite s = run_suite("carried", "A.one=ok GateGpu.Gate=ok", env);
  EXPECT_EQ(s.ran.status, 0) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "2 entries after unpacking " + x.string() + " (made 2026-12-01T23:59Z")) << s.ran.out;
  EXPECT_TRUE(has(s.ran.out, "; 0 entries compiled during the run")) << s.ran.out;
  EXPECT_TRUE(fs::exists(cache / "ab/2.cubin"));
  const Suite none = run_suite("not-carried", "A.one=ok", env + " NO_CARRIED_CACHE=1");
  EXPECT_TRUE(has(none.ran.out, "nothing carried")) << none.ran.out;
}

TEST(WarmGpuTestCache, CompilesATestsKernelsAgainstTheStandInH200AndPacksThemForGpuTests) {
  // One quick GPU test's kernels, compiled here for sm_90a with the H200 configs (the stand-in
  // driver names its device so), packed; gpu-tests.sh then starts from them.
  const fs::path x = fs::temp_directory_path() / "ako-warm-gpu-test-cache-out";
  fs::remove_all(x);
  const Ran warm = run_shell("AKO_BUILD_DIR='" AKO_BINARY_DIR "' '" AKO_SOURCE_DIR
                             "/scripts/warm-gpu-test-cache.sh' --filter 'RunQknorm.KScaledByQsWeightIsIncorrect' --out '" +
                             x.string() + "'");
  ASSERT_EQ(warm.status, 0) << warm.out;
  EXPECT_TRUE(has(warm.out, "NVRTC 13.")) << "the MANIFEST names the NVRTC build:\n" << warm.out;
  const Ran listed = run_shell("tar tJf '" + (x / "cache.tar.xz").string() + "' | grep -c '[.]cubin$'");
  const int cubins = std::atoi(listed.out.c_str());
  EXPECT_GT(cubins, 0) << listed.out;
  EXPECT_TRUE(has(warm.out, "entries " + std::to_string(cubins) + ", " + std::to_string(cubins) + " of them new (")) << warm.out;
  const Ran kernels = run_shell("tar xJf '" + (x / "cache.tar.xz").string() + "' -O --wildcards '*.json' | grep -c qknorm");
  EXPECT_GT(std::atoi(kernels.out.c_str()), 0) << "the qknorm kernels the test runs:\n" << kernels.out;
  const fs::path use = fs::temp_directory_path() / "ako-warm-gpu-test-cache-use";
  fs::remove_all(use);
  const Suite s =
      run_suite("warmed", "A.one=ok", "CARRIED_CACHE='" + x.string() + "' AKO_CACHE_DIR='" + use.string() + "' NO_CARRIED_CACHE=");
  EXPECT_TRUE(has(s.ran.out, std::to_string(cubins) + " entries after unpacking")) << s.ran.out;

  // --add: the same test again starts from the packed entries; its kernels are hits, none is new,
  // and none of the earlier entries is dropped.
  const Ran again = run_shell("AKO_BUILD_DIR='" AKO_BINARY_DIR "' '" AKO_SOURCE_DIR
                              "/scripts/warm-gpu-test-cache.sh' --add --filter 'RunQknorm.KScaledByQsWeightIsIncorrect' --out '" +
                              x.string() + "'");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(has(again.out, "added to: " + std::to_string(cubins) + " entries of ")) << again.out;
  EXPECT_TRUE(has(again.out, "entries " + std::to_string(cubins) + ", 0 of them new (")) << again.out;
}

TEST(GpuTestsScript, EveryTimingPatternNamesATestOfTheRealSuite) {
  // A timing test renamed without this list would run beside the others, its numbers shared.
  const Ran real = run_shell("'" AKO_SOURCE_DIR "/scripts/gpu-tests.sh' --check-timed '" AKO_GPU_TESTS "'");
  EXPECT_EQ(real.status, 0) << real.out;
  const Ran fake = run_shell("FAKE_TESTS='A.one=ok GateGpu.Gate=ok' '" AKO_SOURCE_DIR "/scripts/gpu-tests.sh' --check-timed '" +
                             kFake + "'");
  EXPECT_EQ(fake.status, 1) << fake.out;
  EXPECT_TRUE(has(fake.out, "TIMED pattern 'KillTune.*' names no test")) << fake.out;
  EXPECT_TRUE(has(fake.out, "FAULT pattern 'OracleBlame.*' names no test")) << fake.out;
}

}  // namespace
