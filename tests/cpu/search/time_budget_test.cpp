// --time: the accepted duration forms, the refusals, the short text of the report and the
// budget's expiry on an injected clock.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "search/time_budget.hpp"

namespace ako::search {
namespace {

TEST(TimeBudget, ParsesSecondsMinutesAndHours) {
  EXPECT_DOUBLE_EQ(parse_duration("300"), 300);
  EXPECT_DOUBLE_EQ(parse_duration("300s"), 300);
  EXPECT_DOUBLE_EQ(parse_duration("5m"), 300);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("0.5s"), 0.5);
}

TEST(TimeBudget, RefusesWhatIsNotAPositiveDuration) {
  for (const char* bad : {"", "m", "5 m", "5min", "-3s", "0", "0m", "abc", "5d", "nan", "inf"}) {
    try {
      parse_duration(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--time"), std::string::npos) << e.what();
    }
  }
}

TEST(TimeBudget, FormatsShortText) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(52.4), "52s");
  EXPECT_EQ(format_duration(245), "4m05s");
  EXPECT_EQ(format_duration(3720), "1h02m");
  EXPECT_EQ(format_duration(-3), "0s");
}

TEST(TimeBudget, ExpiresAfterItsBudgetOnTheGivenClock) {
  double now = 100;
  TimeBudget b(30, [&] { return now; });
  EXPECT_FALSE(b.expired());
  now = 129.9;
  EXPECT_FALSE(b.expired());
  EXPECT_NEAR(b.elapsed_s(), 29.9, 1e-9);
  now = 130;
  EXPECT_TRUE(b.expired());
  TimeBudget none(std::nullopt, [&] { return now; });
  now = 1e9;
  EXPECT_FALSE(none.expired());
}

}  // namespace
}  // namespace ako::search
