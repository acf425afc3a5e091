// Blame on the GPU for the kernels timed or run beside the solution (exec/protocol/
// baseline_blame.hpp, oracle_blame.hpp), on copies of inplace_scale in tests/tasks/:
//   a baseline that traps (the context dies) or writes past the end of x (the guard bands): the
//   baseline alone is failed with its fault, the case runs again without it, the solution is
//   correct and timed in every compare case, the honest baseline `plain` too; exit 0;
//   an fp64 oracle that traps: every case skipped naming the oracle (fault oracle_trap), the
//   solution and the reference never blamed; exit 1 (cases skipped).
#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

struct BrokenBaseline {
  const char* task;
  const char* baseline;     // its name in the task
  const char* fault;        // what it did
  const char* reason_has;   // in its reason
};
void PrintTo(const BrokenBaseline& b, std::ostream* os) { *os << b.task; }

class BaselineBlame : public ::testing::TestWithParam<BrokenBaseline> {};

TEST_P(BaselineBlame, TheBaselineFailsAndTheSolutionIsJudgedAndTimed) {
  AKO_REQUIRE_GPU();
  const BrokenBaseline& b = GetParam();
  const auto json = temp_json(std::string("baseline-blame-") + b.task);
  const Ran r = run_ako("run task " + std::string(b.task) + " --root '" + (workspace() / "tests/tasks").string() +
                        "' --case-timeout 20 --no-progress --json " + json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  int compares = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] != "compare") continue;
    ++compares;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["reference_time"]["iqm_us"].get<double>(), 0) << c.dump();
    ASSERT_EQ(c["baselines"].size(), 2u) << c.dump();
    for (const auto& bl : c["baselines"]) {
      if (bl["name"] == b.baseline) {
        EXPECT_EQ(bl["verdict"], "failed") << bl.dump();
        EXPECT_EQ(bl["fault"], b.fault) << bl.dump();
        const std::string reason = bl.value("reason", "");
        EXPECT_EQ(reason.rfind("baseline at fault: ", 0), 0u) << bl.dump();
        EXPECT_NE(reason.find(b.reason_has), std::string::npos) << bl.dump();
      } else {
        EXPECT_EQ(bl["name"], "plain") << bl.dump();
        EXPECT_EQ(bl["verdict"], "correct") << bl.dump();
        EXPECT_GT(bl["time"]["iqm_us"].get<double>(), 0) << bl.dump();
      }
    }
  }
  EXPECT_EQ(compares, 4) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Tasks, BaselineBlame,
    ::testing::Values(BrokenBaseline{"faulting_baseline", "trap", "trap", "baseline trap"},
                      BrokenBaseline{"oob_baseline", "oob", "out_of_bounds_write",
                                     "the baseline oob wrote past the end of buffer 'x'"}),
    [](const auto& info) { return std::string(info.param.task); });

TEST(OracleBlame, ATrappingOracleSkipsEveryCaseNamingTheOracle) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("oracle-blame-faulting_oracle");
  const Ran r = run_ako("run task faulting_oracle --root '" + (workspace() / "tests/tasks").string() +
                        "' --case-timeout 20 --no-progress --json " + json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("skipped(oracle_trap)"), std::string::npos) << r.output;
  const auto j = read_json(json);
  int compares = 0, checks = 0;
  for (const auto& c : j["cases"]) {
    const std::string reason = c.value("reason", "");
    (c["kind"] == "compare" ? compares : checks) += 1;
    EXPECT_EQ(c["verdict"], "skipped") << c.dump();
    EXPECT_EQ(c["fault"], "oracle_trap") << c.dump();
    EXPECT_EQ(reason.rfind("fp64 oracle at fault: trap", 0), 0u) << c.dump();
    EXPECT_NE(reason.find(c["kind"] == "compare" ? "the solution was not judged" : "the reference was not judged"),
              std::string::npos)
        << c.dump();
  }
  EXPECT_EQ(compares, 4) << r.output;
  EXPECT_EQ(checks, 2) << r.output;
  // The summary counts the compare cases (its "cases"), the reference checks are not in it.
  EXPECT_EQ(j["summary"]["skipped"], compares) << j["summary"].dump();
}

}  // namespace
}  // namespace ako::gputest
