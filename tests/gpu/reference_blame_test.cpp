// Blame on the GPU (exec/protocol/reference_blame.hpp): the honest inplace_scale solution against
// a broken reference, one that writes past the end of x and one that stores through a wild
// pointer (tests/tasks/input/{oob,faulting}_reference/). The solution is never blamed: every
// compare case is skipped, its fault reference_<what>, its reason naming the reference; every
// reference check (the reference's own verdict) fails with the plain fault.
#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

struct BrokenReference {
  const char* task;
  const char* fault;        // what the reference did
  const char* reason_has;   // in every compare case's reason
};
void PrintTo(const BrokenReference& b, std::ostream* os) { *os << b.task; }

class ReferenceBlame : public ::testing::TestWithParam<BrokenReference> {};

TEST_P(ReferenceBlame, TheSolutionIsSkippedNamingTheReference) {
  AKO_REQUIRE_GPU();
  const BrokenReference& b = GetParam();
  const auto json = temp_json(std::string("reference-blame-") + b.task);
  const Ran r = run_ako("run task " + std::string(b.task) + " --root '" + (workspace() / "tests/tasks").string() +
                        "' --case-timeout 20 --json " + json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(std::string("skipped(reference_") + b.fault + ")"), std::string::npos) << r.output;
  const auto j = read_json(json);
  int compares = 0, checks = 0;
  for (const auto& c : j["cases"]) {
    const std::string reason = c.value("reason", "");
    if (c["kind"] == "compare") {
      ++compares;
      EXPECT_EQ(c["verdict"], "skipped") << c.dump();
      EXPECT_EQ(c["fault"], std::string("reference_") + b.fault) << c.dump();
      EXPECT_EQ(reason.rfind("reference at fault: ", 0), 0u) << c.dump();
      EXPECT_NE(reason.find(b.reason_has), std::string::npos) << c.dump();
      EXPECT_NE(reason.find("the solution was not judged on this case"), std::string::npos) << c.dump();
    } else {
      ++checks;
      EXPECT_EQ(c["verdict"], "failed") << c.dump();
      EXPECT_EQ(c["fault"], b.fault) << c.dump();
    }
  }
  EXPECT_EQ(compares, 4) << r.output;
  EXPECT_EQ(checks, 2) << r.output;
  EXPECT_EQ(j["summary"]["skipped"], 4) << j["summary"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Tasks, ReferenceBlame,
    ::testing::Values(BrokenReference{"oob_reference", "out_of_bounds_write", "the reference wrote past the end of buffer 'x'"},
                      BrokenReference{"faulting_reference", "illegal_address", "illegal address"}),
    [](const auto& info) { return std::string(info.param.task); });

}  // namespace
}  // namespace ako::gputest
