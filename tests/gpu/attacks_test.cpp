// The trustworthy-verdict defences on the GPU: every offending kernel of tests/attacks/ runs
// through `ako run --solution` and gets its exact verdict, fault and reason; the honest solution
// passes with no false alarm (guards intact, deterministic, non-constant, one declared launch
// per sample, timed outputs re-checked); the per-launch watchdog fires on the reference's scale;
// --sanitize attaches compute-sanitizer reports to a failing case.
#include "gpu_test_support.hpp"

#include <filesystem>
#include <regex>

namespace ako::gputest {
namespace {

struct Attack {
  const char* file;        // under tests/attacks/
  const char* verdict;
  const char* fault;       // "" for incorrect
  const char* reason;      // the reason starts with this ...
  bool exact = false;      // ... or equals it
  const char* shape = "text-512";  // the shape whose two cases (weight, noweight) it runs on
  const char* pattern = nullptr;   // when set, the whole reason matches this regex instead
};

void PrintTo(const Attack& a, std::ostream* os) { *os << a.file; }

// One shape (text-512, 512 x 3072, unless the attack names another), bf16, weight and
// noweight: 2 compare cases.
const char* kSmall = " --dtypes bf16 --no-checks --case-timeout 30";

nlohmann::json run_attack(const std::string& file, const std::string& extra, Ran& r,
                          const std::string& shape = "text-512") {
  const auto json = temp_json("attack-" + file);
  std::filesystem::remove(json);
  r = run_ako("run task rmsnorm --solution tests/attacks/" + file + " --shapes " + shape + kSmall + extra +
              " --json " + json.string());
  return std::filesystem::exists(json) ? read_json(json) : nlohmann::json();
}

class AttackKernel : public ::testing::TestWithParam<Attack> {};

TEST_P(AttackKernel, GetsItsExactVerdict) {
  AKO_REQUIRE_GPU();
  const Attack& a = GetParam();
  Ran r;
  // 175 registers break the launch at 512 threads only; pin them, whatever the device's tuned
  // config picks for the shape (the H200's takes 128 threads for 128-wide rows).
  const std::string pinned = a.file == std::string("out_of_resources.cuh")
                                 ? " --param BLOCK=512 --param ROWS_PER_BLOCK=32 --param VEC=8 --param CHUNKS=1"
                                 : "";
  const auto j = run_attack(a.file, " --no-time" + pinned, r, a.shape);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("CORRECT: no"), std::string::npos) << r.output;
  ASSERT_TRUE(j.contains("cases")) << r.output;
  ASSERT_EQ(j["cases"].size(), 2u) << r.output;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], a.verdict) << c.dump();
    EXPECT_EQ(c["fault"], a.fault) << c.dump();
    const std::string reason = c["reason"].get<std::string>();
    if (a.pattern)
      EXPECT_TRUE(std::regex_match(reason, std::regex(a.pattern))) << a.pattern << "\n" << c.dump();
    else if (a.exact)
      EXPECT_EQ(reason, a.reason) << c.dump();
    else
      EXPECT_EQ(reason.rfind(a.reason, 0), 0u) << c.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rmsnorm, AttackKernel,
    ::testing::Values(
        // 8 bf16 elements right after the end: the 16 bytes of padding-and-guard after 'out'. A
        // written byte that happens to equal the run's salted guard byte there cannot be seen
        // (about 1 in 256 per byte, seen on the H200): 16 changed bytes, rarely one or two fewer.
        Attack{"oob_write_after.cuh", "failed", "out_of_bounds_write", "", false, "text-512",
               R"(out-of-bounds write: the solution wrote past the end of buffer 'out' \((1[4-6]) bytes changed, )"
               R"(from [1-3] to 1[4-6] bytes after its end\))"},
        Attack{"oob_write_before.cuh", "failed", "out_of_bounds_write", "", false, "text-512",
               R"(out-of-bounds write: the solution wrote before the start of buffer 'out' \([6-8] bytes changed, )"
               R"(from [6-8] to [1-3] bytes? before its start\))"},
        Attack{"uninit_smem.cuh", "incorrect", "",
               "nondeterministic: two runs of the solution on the same inputs differ in 'out'"},
        Attack{"constant_output.cuh", "incorrect", "",
               "constant output: all 1572864 elements of 'out' are 0 while the reference's vary "
               "(unwritten or skipped work)",
               true},
        Attack{"misaligned.cuh", "failed", "misaligned", "misaligned address, in validation trial 1/3, solution"},
        // qknorm-flux (110592 x 128): the head-dim-128 class launches 512 threads per block.
        Attack{"out_of_resources.cuh", "failed", "out_of_resources", "out of resources", false, "qknorm-flux"}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

// Work skipped when the output already holds the answer: the outputs are poisoned before every
// launch (timed ones too) and the input sets rotate, so the shortcut never fires. Had it fired
// while timing, the kernel would move far more than the copy bandwidth allows and be refused.
TEST(AttackKernels, SkipOnRepeatedInputsGainsNothing) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("attack-skip_repeated");
  const Ran r = run_ako("run task rmsnorm --solution tests/attacks/skip_repeated.cuh --shapes flux1-single "
                        "--dtypes bf16 --no-checks --max-time 0.1 --json " + json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    EXPECT_LT(c["pct_copy_bw"].get<double>(), 110.0) << c.dump();
    EXPECT_GE(c["input_sets"].get<int>(), 2) << c.dump();
    EXPECT_EQ(c["solution_time"]["launch_audit"], "") << c.dump();
  }
}

// No false alarm: the honest solution over small, large and QK-norm shapes, both dtypes, timed.
TEST(AttackKernels, HonestSolutionRaisesNoAlarm) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("attack-honest");
  const Ran r = run_ako("run task rmsnorm --shapes text-512,flux1-single,hunyuan-720p,qknorm-flux --max-time 0.1 --json " +
                        json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  int compare = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    EXPECT_EQ(c["reason"], "") << c.dump();
    if (c["kind"] != "compare") continue;
    ++compare;
    EXPECT_GE(c["input_sets"].get<int>(), 2) << c.dump();   // cold L2: rotating sets
    EXPECT_EQ(c["solution_time"]["launch_audit"], "") << c.dump();
    EXPECT_EQ(c["solution_time"]["kernels_per_sample"].get<double>(), 1.0) << c.dump();
  }
  EXPECT_EQ(compare, 16);
}

TEST(AttackKernels, HotRunKeepsOneInputSet) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("attack-honest-hot");
  const Ran r = run_ako("run task rmsnorm --shapes text-512 --dtypes bf16 --no-checks --hot --max-time 0.05 --json " +
                        json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);   // kept: a range-for over a temporary's member dangles
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    EXPECT_EQ(c["input_sets"], 1) << c.dump();
  }
}

// The per-launch watchdog: max(2 s, 1000 x the reference's time), not the case timeout.
TEST(AttackKernels, HangIsStoppedOnTheReferencesScale) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("attack-hang");
  const Ran r = run_ako("run task rmsnorm --solution tests/gpu/broken/hang.cuh --shapes text-512 --dtypes bf16 "
                        "--no-checks --no-time --case-timeout 60 --json " + json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_LT(r.wall_s, 40.0) << "the 60 s case timeout fired instead of the per-launch limit\n" << r.output;
  const auto j = read_json(json);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "failed") << c.dump();
    EXPECT_EQ(c["fault"], "timeout") << c.dump();
    const std::string reason = c["reason"].get<std::string>();
    // The limit is 2 s unless the reference's first launch (module loading included) took over 2 ms.
    EXPECT_EQ(reason.rfind("timeout: no progress for ", 0), 0u) << reason;
    EXPECT_NE(reason.find(" s in the solution's launch (validation trial 1/3, solution; per-launch limit "
                          "max(2 s, 1000 x the reference's "),
              std::string::npos)
        << reason;
  }
}

// --sanitize: the failing cases again under compute-sanitizer, reports attached.
TEST(AttackKernels, SanitizeAttachesReports) {
  AKO_REQUIRE_GPU();
  Ran r;
  const auto j = run_attack("misaligned.cuh", " --no-time --sanitize", r);
  EXPECT_EQ(r.status, 1) << r.output;
  ASSERT_TRUE(j.contains("cases")) << r.output;
  for (const auto& c : j["cases"]) {
    ASSERT_EQ(c["sanitizer"].size(), 3u) << c.dump();
    EXPECT_EQ(c["sanitizer"][0]["tool"], "memcheck");
    EXPECT_EQ(c["sanitizer"][1]["tool"], "racecheck");
    EXPECT_EQ(c["sanitizer"][2]["tool"], "initcheck");
    const auto& memcheck = c["sanitizer"][0];
    EXPECT_GT(memcheck["errors"].get<int>(), 0) << memcheck.dump();
    EXPECT_EQ(memcheck["exit_code"], 86) << memcheck.dump();
    EXPECT_TRUE(std::filesystem::exists(memcheck["report"].get<std::string>())) << memcheck.dump();
    EXPECT_NE(memcheck["excerpt"].get<std::string>().find("misaligned"), std::string::npos) << memcheck.dump();
  }
  EXPECT_NE(r.output.find("sanitize case 0 (memcheck)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ako::gputest
