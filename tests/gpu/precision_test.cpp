// The precision check against the fp64 oracle on the GPU (tasks/README.md, "Precision against
// the oracle"): an RMSNorm that accumulates its sum of squares in the output dtype
// (tests/attacks/bf16_accumulate.cuh) is refused on every one of 20 seeds, on every case; the
// shipped solution and an fp32 sum in another order (tests/attacks/reordered_sum.cuh) pass on
// every one of 20 seeds; and what the check adds to a full `ako run task rmsnorm` is measured
// per case and printed.
#include "gpu_test_support.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ako::gputest {
namespace {

constexpr int kSeeds = 20;
// Two shapes that take different rows-per-block paths on every device config (3072 wide, and
// 128 wide with 16 threads per row on the H200), both dtypes, weight and noweight: 8 cases.
const char* kCases = " --shapes text-512,qknorm-flux --dtypes bf16,fp16 --no-time --no-checks --case-timeout 60";
constexpr const char* kPrecisionPrefix = "less precise than the reference: in 'out' (validation trial ";
constexpr const char* kTolerancePrefix = "solution differs from reference kernel in 'out'";

// A folder of its own per test process (the suite may run beside other users').
std::filesystem::path scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ako-precision-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return std::filesystem::temp_directory_path();
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

struct Seeded {
  Ran ran;
  nlohmann::json result;
};

Seeded run_seed(const std::string& solution, int seed) {
  const auto json = scratch_dir() / ("seed-" + std::to_string(seed) + ".json");
  std::filesystem::remove(json);
  Seeded s;
  s.ran = run_ako("run task rmsnorm" + (solution.empty() ? "" : " --solution " + solution) + kCases + " --seed " +
                  std::to_string(seed) + " --json " + json.string());
  if (std::filesystem::exists(json)) s.result = read_json(json);
  return s;
}

// Per kernel: the range of the solution/yardstick ratios over every case and seed.
struct Ratios {
  double rms_lo = 1e300, rms_hi = 0, max_lo = 1e300, max_hi = 0;
  void add(const nlohmann::json& p) {
    if (p.is_null() || p["rms_ratio"].is_null() || p["max_ratio"].is_null()) return;
    rms_lo = std::min(rms_lo, p["rms_ratio"].get<double>());
    rms_hi = std::max(rms_hi, p["rms_ratio"].get<double>());
    max_lo = std::min(max_lo, p["max_ratio"].get<double>());
    max_hi = std::max(max_hi, p["max_ratio"].get<double>());
  }
  void print(const std::string& what) const {
    std::printf("[precision] %s: RMS ratio %.3f..%.3f, max ratio %.3f..%.3f over %d seeds\n", what.c_str(), rms_lo,
                rms_hi, max_lo, max_hi, kSeeds);
  }
};

TEST(Precision, Bf16AccumulationIsRefusedOnEverySeed) {
  AKO_REQUIRE_GPU();
  Ratios ratios;
  int by_precision = 0, by_tolerance = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Seeded s = run_seed("tests/attacks/bf16_accumulate.cuh", seed);
    EXPECT_EQ(s.ran.status, 1) << "seed " << seed << "\n" << s.ran.output;
    ASSERT_TRUE(s.result.contains("cases")) << s.ran.output;
    ASSERT_EQ(s.result["cases"].size(), 8u) << s.ran.output;
    for (const auto& c : s.result["cases"]) {
      EXPECT_EQ(c["verdict"], "incorrect") << "seed " << seed << ": " << c.dump();
      const std::string reason = c["reason"].get<std::string>();
      if (reason.rfind(kPrecisionPrefix, 0) == 0) {
        ++by_precision;
        ratios.add(c["precision"]);
        EXPECT_GT(c["precision"]["rms_ratio"].get<double>(), c["precision"]["rms_factor"].get<double>()) << c.dump();
      } else {
        // A trial may already break the tolerance against the reference; the rest are judged.
        EXPECT_EQ(reason.rfind(kTolerancePrefix, 0), 0u) << "seed " << seed << ": " << c.dump();
        ++by_tolerance;
      }
    }
  }
  ratios.print("bf16_accumulate.cuh (refused)");
  std::printf("[precision] bf16_accumulate.cuh: %d cases refused by the precision check, %d by the tolerance\n",
              by_precision, by_tolerance);
  EXPECT_GT(by_precision, 0);
}

class HonestKernel : public ::testing::TestWithParam<const char*> {};

TEST_P(HonestKernel, PassesOnEverySeed) {
  AKO_REQUIRE_GPU();
  const std::string solution = GetParam();
  Ratios ratios;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Seeded s = run_seed(solution, seed);
    EXPECT_EQ(s.ran.status, 0) << "seed " << seed << "\n" << s.ran.output;
    ASSERT_TRUE(s.result.contains("cases")) << s.ran.output;
    ASSERT_EQ(s.result["cases"].size(), 8u) << s.ran.output;
    for (const auto& c : s.result["cases"]) {
      EXPECT_EQ(c["verdict"], "correct") << "seed " << seed << ": " << c.dump();
      ASSERT_FALSE(c["precision"].is_null()) << c.dump();
      EXPECT_EQ(c["precision"]["trials_checked"], c["trials"]) << c.dump();
      ratios.add(c["precision"]);
    }
  }
  ratios.print((solution.empty() ? std::string("solution/rmsnorm") : solution) + " (honest)");
}

INSTANTIATE_TEST_SUITE_P(Rmsnorm, HonestKernel, ::testing::Values("", "tests/attacks/reordered_sum.cuh"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(*p.param ? "ReorderedSum" : "ShippedSolution");
                         });

// What the check adds to a warm full run: the worker's own clock per case (allocation of the
// fp64 copies, widening, the oracle, the reductions, freeing), summed; and the run's wall time.
TEST(Precision, CostOfAFullWarmRmsnormRun) {
  AKO_REQUIRE_GPU();
  ASSERT_EQ(run_ako("run task rmsnorm --no-progress").status, 0);   // warms the caches
  const auto json = scratch_dir() / "full.json";
  const Ran r = run_ako("run task rmsnorm --no-progress --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  double total = 0, worst = 0;
  std::string worst_case;
  int cases = 0;
  for (const auto& c : j["cases"]) {
    if (c["kind"] != "compare") continue;
    ASSERT_FALSE(c["precision"].is_null()) << c.dump();
    const double s = c["precision"]["check_s"].get<double>();
    std::printf("[precision] %-28s %s %s: check %.1f ms (rms ratio %.3f, max ratio %.3f)\n",
                c["shape"].get<std::string>().c_str(), c["dtype"].get<std::string>().c_str(),
                c["flags"]["weight"].get<bool>() ? "weight" : "noweight", 1e3 * s,
                c["precision"]["rms_ratio"].get<double>(), c["precision"]["max_ratio"].get<double>());
    total += s;
    ++cases;
    if (s > worst) worst = s, worst_case = c["shape"].get<std::string>();
  }
  std::printf("[precision] full warm run: wall %.2f s; the check took %.3f s over %d compare cases (%.1f ms per case "
              "on average, at most %.1f ms on %s)\n",
              r.wall_s, total, cases, 1e3 * total / std::max(cases, 1), 1e3 * worst, worst_case.c_str());
  RecordProperty("precision_check_s", std::to_string(total));
  RecordProperty("warm_wall_s", std::to_string(r.wall_s));
  EXPECT_EQ(cases, 40);
}

}  // namespace
}  // namespace ako::gputest
