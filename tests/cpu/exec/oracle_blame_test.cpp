// Blame for the fp64 oracle (exec/protocol/oracle_blame.hpp): a fault or hang of the oracle makes
// the case skipped, naming the oracle, never a failure of the kernel it measures (the solution
// in a compare case, the reference in a reference check). Who was running needs a GPU:
// tests/gpu/kernel_blame_test.cpp (Tasks/OracleBlame.*).
#include "exec/protocol/oracle_blame.hpp"

#include <gtest/gtest.h>

#include "exec/protocol/reference_blame.hpp"

namespace ako::exec {
namespace {

TEST(OracleBlame, OnlyTheOraclesRoleIsCharged) {
  EXPECT_TRUE(charged_to_oracle("oracle"));
  for (const char* other : {"reference", "solution", "baseline flashinfer", ""})
    EXPECT_FALSE(charged_to_oracle(other)) << other;
}

TEST(OracleBlame, ACompareCaseIsSkippedTheSolutionNotJudged) {
  CaseResult r;
  r.index = 2;
  r.bytes = 1e6;
  r.verdict = Verdict::failed;
  blame_oracle(r, "compare", "trap", "trap (the kernel aborted: __trap, assert or another launch failure), in ...");
  EXPECT_EQ(r.verdict, Verdict::skipped);
  EXPECT_EQ(r.fault, "oracle_trap");
  EXPECT_EQ(r.reason,
            "fp64 oracle at fault: trap (the kernel aborted: __trap, assert or another launch failure), in ...; the "
            "solution was not judged on this case");
  EXPECT_EQ(r.index, 2);
  EXPECT_EQ(r.bytes, 1e6);
  EXPECT_TRUE(blamed_on_oracle(r));
  EXPECT_FALSE(blamed_on_reference(r));
}

TEST(OracleBlame, AReferenceCheckIsSkippedTheReferenceNotJudged) {
  CaseResult r;
  r.kind = "reference_check";
  blame_oracle(r, "reference_check", "timeout", "timeout: no progress for 2 s in ...");
  EXPECT_EQ(r.verdict, Verdict::skipped);
  EXPECT_EQ(r.fault, "oracle_timeout");
  EXPECT_EQ(r.reason, "fp64 oracle at fault: timeout: no progress for 2 s in ...; the reference was not judged on this case");
  EXPECT_TRUE(blamed_on_oracle(r));
}

TEST(OracleBlame, OtherVerdictsAreNotTheOracles) {
  CaseResult failed;
  failed.verdict = Verdict::failed;
  failed.fault = "oracle_trap";   // failed is never a blame
  EXPECT_FALSE(blamed_on_oracle(failed));
  CaseResult reference;
  blame_reference(reference, "trap", "...");
  EXPECT_FALSE(blamed_on_oracle(reference));
}

}  // namespace
}  // namespace ako::exec
