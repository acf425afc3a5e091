// The format-v2 capability tasks (tests/tasks/, one per buffer kind or axis kind) through
// `ako run` on the GPU: each honest solution is correct on every case and every reference
// meets its fp64 oracle; each deliberately wrong kernel of a new kind is caught with the
// right verdict, fault and buffer name (tests/tasks/README.md).
#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

std::string tasks_root() { return (workspace() / "tests/tasks").string(); }

Ran run_task(const std::string& task, const std::string& extra, const std::filesystem::path& json) {
  return run_ako("run task " + task + " --root '" + tasks_root() + "' --case-timeout 10 " + extra + " --json " +
                 json.string());
}

class Capability : public ::testing::TestWithParam<const char*> {};

TEST_P(Capability, HonestSolutionIsCorrectAndTheReferenceMeetsItsOracle) {
  AKO_REQUIRE_GPU();
  const std::string task = GetParam();
  const auto json = temp_json("capability-" + task);
  const Ran r = run_task(task, "", json);
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  int checks = 0, compares = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    (c["kind"] == "reference_check" ? checks : compares) += 1;
    if (c["kind"] == "compare") {
      EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0.0) << c.dump();
      EXPECT_GT(c["bytes"].get<double>(), 0.0) << c.dump();
      // modulate's baseline runs where its `when` holds (layout != 'blc'), validated and timed.
      for (const auto& b : c.value("baselines", nlohmann::json::array())) {
        const bool applies = c["axes"].value("layout", "") != "blc";
        EXPECT_EQ(b["verdict"], applies ? "correct" : "skipped") << b.dump();
        if (applies) {
          EXPECT_GT(b["time"]["iqm_us"].get<double>(), 0.0) << b.dump();
        }
      }
    }
  }
  EXPECT_GT(checks, 0);
  EXPECT_GT(compares, 0);
}

INSTANTIATE_TEST_SUITE_P(Tasks, Capability,
                         ::testing::Values("inplace_scale", "gather_rows", "modulate", "qk_view", "two_outputs"));

struct Wrong {
  const char* task;
  const char* solution;    // under tests/tasks/broken/, or "" for the task's own
  const char* kind;        // the kind of case that must fail
  const char* verdict;
  const char* fault;
  const char* reason_has;
};
void PrintTo(const Wrong& w, std::ostream* os) { *os << w.task << " " << w.solution; }

class WrongKernel : public ::testing::TestWithParam<Wrong> {};

TEST_P(WrongKernel, IsCaughtForTheRightReason) {
  AKO_REQUIRE_GPU();
  const Wrong& w = GetParam();
  const auto json = temp_json(std::string("capability-wrong-") + w.task);
  const std::string solution = *w.solution ? " --solution '" + tasks_root() + "/broken/" + w.solution + "'" : "";
  const Ran r = run_task(w.task, "--no-time" + solution, json);
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  int caught = 0;
  for (const auto& c : j["cases"]) {
    if (c["kind"] != w.kind) continue;
    ++caught;
    EXPECT_EQ(c["verdict"], w.verdict) << c.dump();
    if (*w.fault) {
      EXPECT_EQ(c["fault"], w.fault) << c.dump();
    }
    EXPECT_NE(c["reason"].get<std::string>().find(w.reason_has), std::string::npos) << c.dump();
  }
  EXPECT_GT(caught, 0) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    NewKinds, WrongKernel,
    ::testing::Values(Wrong{"qk_view", "qk_view_writes_v.cuh", "compare", "failed", "out_of_bounds_write", "'qkv'"},
                      Wrong{"two_outputs", "two_outputs_forgets_y.cuh", "compare", "incorrect", "", "'y'"},
                      Wrong{"inplace_scale", "inplace_half_updated.cuh", "compare", "incorrect", "", "'x'"},
                      Wrong{"wrong_reference", "", "reference_check", "incorrect", "", "fp64 oracle"}),
    [](const auto& info) { return std::string(info.param.task); });

}  // namespace
}  // namespace ako::gputest
