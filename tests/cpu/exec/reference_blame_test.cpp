// Blame (exec/protocol/reference_blame.hpp): a fault, hang or out-of-bounds write of the
// reference in a compare case makes that case skipped, naming the reference, never a failure of
// the solution; in a reference_check case it stays that check's own failure. The worker's side
// (who was running) needs a GPU: tests/gpu/reference_blame_test.cpp.
#include "exec/protocol/reference_blame.hpp"

#include <gtest/gtest.h>

namespace ako::exec {
namespace {

TEST(ReferenceBlame, OnlyTheReferenceOfACompareCaseIsCharged) {
  EXPECT_TRUE(charged_to_reference("compare", "reference"));
  EXPECT_FALSE(charged_to_reference("compare", "solution"));
  EXPECT_FALSE(charged_to_reference("compare", "baseline flashinfer"));
  EXPECT_FALSE(charged_to_reference("compare", "oracle"));
  EXPECT_FALSE(charged_to_reference("compare", "")) << "an unknown culprit (a hang while timing) is not the reference's";
  EXPECT_FALSE(charged_to_reference("reference_check", "reference")) << "there the verdict is the reference's own";
}

TEST(ReferenceBlame, TheCaseIsSkippedWithTheReferencesFaultAndReason) {
  CaseResult r;
  r.index = 4;
  r.bytes = 1e6;
  r.verdict = Verdict::failed;
  r.fault = "out_of_bounds_write";
  blame_reference(r, "out_of_bounds_write",
                  "out-of-bounds write: the reference wrote past the end of buffer 'x' (16 bytes changed)");
  EXPECT_EQ(r.verdict, Verdict::skipped);
  EXPECT_EQ(r.fault, "reference_out_of_bounds_write");
  EXPECT_EQ(r.reason,
            "reference at fault: out-of-bounds write: the reference wrote past the end of buffer 'x' (16 bytes "
            "changed); the solution was not judged on this case");
  EXPECT_EQ(r.index, 4);
  EXPECT_EQ(r.bytes, 1e6);
  EXPECT_TRUE(blamed_on_reference(r));
}

TEST(ReferenceBlame, OtherVerdictsAreNotTheReferences) {
  CaseResult failed;
  failed.verdict = Verdict::failed;
  failed.fault = "illegal_address";
  EXPECT_FALSE(blamed_on_reference(failed));
  CaseResult not_run;
  not_run.verdict = Verdict::skipped;
  not_run.reason = "not run: compilation failed";
  EXPECT_FALSE(blamed_on_reference(not_run));
  CaseResult odd;   // a failed case carrying the prefix is still failed, not skipped
  odd.verdict = Verdict::failed;
  odd.fault = reference_fault("trap");
  EXPECT_FALSE(blamed_on_reference(odd));
}

}  // namespace
}  // namespace ako::exec
