// `ako gate` on a real GPU: a baseline made from the real solution, then a deliberately slowed
// solution (tests/gpu/slow/rmsnorm_slow.cuh: same algorithm plus extra DRAM reads, still
// correct) must fail with a timing regression while the real one passes.
#include <fstream>

#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

namespace fs = std::filesystem;

// Large shapes: the extra reads miss L2 there, so the slowdown is far beyond any noise.
const std::string kCases = " --tasks rmsnorm --shapes hunyuan-720p,wan14b-480p --dtypes bf16 --no-progress";

// A copy of the workspace whose task uses the slowed solution (the copy keeps the relative
// include of the real solution working: tests/gpu/slow -> ../../../solution).
fs::path slow_workspace() {
  const fs::path ws = fs::temp_directory_path() / "ako-gpu-tests" / "gate-slow-ws";
  fs::remove_all(ws);
  for (const char* d : {"tasks/rmsnorm", "input/rmsnorm", "solution/rmsnorm", "tests/gpu/slow"}) {
    fs::create_directories(ws / d);
    fs::copy(workspace() / d, ws / d, fs::copy_options::recursive);
  }
  auto spec = read_json(ws / "tasks/rmsnorm/task.json");
  spec["solution"]["file"] = "tests/gpu/slow/rmsnorm_slow.cuh";
  std::ofstream(ws / "tasks/rmsnorm/task.json") << spec.dump(2);
  return ws;
}

bool timing_regression_in(const nlohmann::json& report) {
  for (const auto& c : report["checks"])
    if (c["check"] == "timing" && c["status"] == "fail") return true;
  return false;
}

TEST(GateGpu, BaselineThenSlowSolutionFailsAndRealOnePasses) {
  AKO_REQUIRE_GPU();
  const fs::path baseline = temp_json("gate-baseline");
  fs::remove(baseline);
  const Ran made = run_ako("gate --update-baseline --baseline " + baseline.string() + kCases);
  ASSERT_EQ(made.status, 0) << made.output;
  const auto file = read_json(baseline);
  ASSERT_EQ(file["schema"], "ako.baseline/2") << file.dump(2);
  ASSERT_EQ(file["devices"].size(), 1u) << file.dump(2);  // the GPU's own entry, keyed by its name
  const auto& b = file["devices"].begin().value();
  ASSERT_FALSE(b["device"].is_null()) << file.dump(2);
  ASSERT_EQ(b["device"]["name"], file["devices"].begin().key());
  ASSERT_EQ(b["tasks"]["rmsnorm"]["cases"]["hunyuan-720p bf16 weight"]["verdict"], "correct");
  ASSERT_GT(b["tasks"]["rmsnorm"]["cases"]["hunyuan-720p bf16 weight"]["solution"]["iqm_us"].get<double>(), 0);

  const fs::path slow_report = temp_json("gate-slow-report");
  const Ran slow = run_ako("gate --root " + slow_workspace().string() + " --baseline " + baseline.string() +
                           " --json " + slow_report.string() + kCases);
  EXPECT_EQ(slow.status, 1) << slow.output;
  EXPECT_NE(slow.output.find("regression"), std::string::npos) << slow.output;
  const auto sr = read_json(slow_report);
  EXPECT_TRUE(timing_regression_in(sr)) << sr.dump(2);
  for (const auto& c : sr["checks"])
    EXPECT_FALSE(c["check"] == "correctness" && c["status"] == "fail") << "the slow kernel must stay correct: " << c;

  const fs::path real_report = temp_json("gate-real-report");
  const Ran real = run_ako("gate --baseline " + baseline.string() + " --json " + real_report.string() + kCases);
  EXPECT_EQ(real.status, 0) << real.output;
  EXPECT_FALSE(timing_regression_in(read_json(real_report)));
}

}  // namespace
}  // namespace ako::gputest
