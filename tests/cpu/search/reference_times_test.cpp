// The reference is timed once per case label per tune run: one claim per label, again only
// when the claiming case was not timed, never once a time is known.
#include <gtest/gtest.h>

#include "search/reference_times.hpp"

namespace ako::search {
namespace {

TEST(ReferenceTimes, OneCaseClaimsEachLabelAndLaterJobsOnlyValidate) {
  ReferenceTimes r;
  // Batch 1: two variants run the same two cases; only the first of each label times it.
  EXPECT_TRUE(r.claim("flux1-single bf16 weight"));
  EXPECT_TRUE(r.claim("flux1-single bf16 noweight"));
  EXPECT_FALSE(r.claim("flux1-single bf16 weight"));
  EXPECT_FALSE(r.claim("flux1-single bf16 noweight"));
  r.settle("flux1-single bf16 weight", 21.5);
  r.settle("flux1-single bf16 noweight", 20.0);
  EXPECT_EQ(r.timed(), 2u);
  EXPECT_DOUBLE_EQ(*r.time_us("flux1-single bf16 weight"), 21.5);
  // Batch 2: nothing to time again.
  EXPECT_FALSE(r.claim("flux1-single bf16 weight"));
  EXPECT_FALSE(r.claim("flux1-single bf16 noweight"));
  EXPECT_FALSE(r.time_us("text-512 bf16 weight"));
}

TEST(ReferenceTimes, AClaimWhoseCaseWasNotTimedIsReleased) {
  ReferenceTimes r;
  ASSERT_TRUE(r.claim("zimage bf16 weight"));
  r.settle("zimage bf16 weight", std::nullopt);  // the claiming variant was wrong: no timing
  EXPECT_FALSE(r.time_us("zimage bf16 weight"));
  EXPECT_TRUE(r.claim("zimage bf16 weight"));  // the next job times it
  r.settle("zimage bf16 weight", 0.0);         // an empty timing counts as not timed
  EXPECT_TRUE(r.claim("zimage bf16 weight"));
  r.settle("zimage bf16 weight", 30.0);
  EXPECT_FALSE(r.claim("zimage bf16 weight"));
}

}  // namespace
}  // namespace ako::search
