// Deliberately broken solutions (tests/gpu/broken/*.cuh) through `ako run`: each is reported
// with the right verdict and fault, the harness keeps going past crashes and hangs (every
// case gets its own verdict, none is left skipped), prints the table and exits 1.
#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

struct Broken {
  const char* file;
  const char* verdict;
  const char* fault;       // expected fault for failed verdicts
  const char* reason_has;  // a word the reason must contain
};

// Printed by gtest in test names and failures.
void PrintTo(const Broken& b, std::ostream* os) { *os << b.file; }

class BrokenKernel : public ::testing::TestWithParam<Broken> {};

TEST_P(BrokenKernel, IsCaughtAndTheRunGoesOn) {
  AKO_REQUIRE_GPU();
  const Broken& b = GetParam();
  const auto json = temp_json(std::string("broken-") + b.file);
  const Ran r = run_ako(std::string("run task rmsnorm --solution tests/gpu/broken/") + b.file +
                        " --shapes text-512,qknorm-flux --dtypes bf16 --no-time --no-checks --case-timeout 5 --json " +
                        json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("COMPILED: yes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CORRECT: no"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verdict"), std::string::npos) << "the table was not printed\n" << r.output;
  const auto j = read_json(json);
  ASSERT_EQ(j["cases"].size(), 4u);  // 2 shapes x weight/noweight, bf16
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], b.verdict) << c.dump();
    if (std::string(b.verdict) == "failed") {
      EXPECT_EQ(c["fault"], b.fault) << c.dump();
    }
    EXPECT_NE(c["reason"].get<std::string>().find(b.reason_has), std::string::npos) << c.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rmsnorm, BrokenKernel,
    ::testing::Values(Broken{"illegal_address.cuh", "failed", "illegal_address", "illegal address"},
                      Broken{"trap.cuh", "failed", "trap", "trap"},
                      Broken{"hang.cuh", "failed", "timeout", "no progress"},
                      Broken{"wrong_result.cuh", "incorrect", "", "mismatch"},
                      Broken{"unwritten_tail.cuh", "incorrect", "", "NaN/Inf"},
                      Broken{"nan_output.cuh", "incorrect", "", "NaN/Inf"}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

}  // namespace
}  // namespace ako::gputest
