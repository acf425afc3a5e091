// `ako run task rmsnorm` on a real GPU: every shape and dtype correct, the reference agrees
// with the fp64 oracle, a warm-cache run is fast, and timings repeat.
#include <map>

#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

TEST(RunRmsnorm, EveryShapeAndDtypeIsCorrect) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("rmsnorm-full");
  const Ran r = run_ako("run task rmsnorm --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("COMPILED: yes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  for (const char* line : {"RUNTIME: ", "REF_RUNTIME: ", "SPEEDUP: "})
    EXPECT_NE(r.output.find(line), std::string::npos) << line;
  const auto j = read_json(json);
  EXPECT_EQ(j["schema"], "ako.run/1");
  std::map<std::string, int> per_shape;
  int checks = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] == "reference_check") {
      ++checks;
      continue;
    }
    per_shape[c["shape"]]++;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["reference_time"]["iqm_us"].get<double>(), 0) << c.dump();
    EXPECT_EQ(c["solution_time"]["method"], "cupti");
    EXPECT_GE(c["solution_time"]["kernels_per_sample"].get<double>(), 1.0);
  }
  EXPECT_EQ(per_shape.size(), 10u);
  for (const auto& [shape, n] : per_shape) EXPECT_EQ(n, 4) << shape << ": bf16/fp16 x weight/noweight";
  EXPECT_GE(checks, 6);
  EXPECT_GT(j["device"]["copy_bandwidth_gbs"].get<double>(), 500.0);
}

TEST(RunRmsnorm, WarmCacheRunTakesUnderTenSeconds) {
  AKO_REQUIRE_GPU();
  ASSERT_EQ(run_ako("run task rmsnorm --no-progress").status, 0);  // fills the caches
  const Ran r = run_ako("run task rmsnorm --no-progress");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_LT(r.wall_s, 10.0) << r.output;
  RecordProperty("warm_wall_s", std::to_string(r.wall_s));
}

TEST(RunRmsnorm, TimingRepeatsWithinTwoPercentOnLargeShapes) {
  AKO_REQUIRE_GPU();
  const std::string args = "run task rmsnorm --shapes hunyuan-720p,wan14b-480p,flux2-single --dtypes bf16 --no-checks --json ";
  const auto a = temp_json("repeat-a"), b = temp_json("repeat-b");
  ASSERT_EQ(run_ako(args + a.string()).status, 0);
  ASSERT_EQ(run_ako(args + b.string()).status, 0);
  const auto ja = read_json(a), jb = read_json(b);
  ASSERT_EQ(ja["cases"].size(), jb["cases"].size());
  for (size_t i = 0; i < ja["cases"].size(); ++i) {
    for (const char* k : {"solution_time", "reference_time"}) {
      const double x = ja["cases"][i][k]["iqm_us"], y = jb["cases"][i][k]["iqm_us"];
      EXPECT_NEAR(x / y, 1.0, 0.02) << ja["cases"][i]["shape"] << " " << k << ": " << x << " vs " << y;
    }
  }
}

}  // namespace
}  // namespace ako::gputest
