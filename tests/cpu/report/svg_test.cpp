// The SVG primitives: escaping, round ticks, the value-to-pixel mapping and what an element
// looks like (its class, its hover title).
#include <gtest/gtest.h>

#include "report/svg.hpp"

namespace ako::report {
namespace {

TEST(ReportSvg, EscapesMarkupInTextAndAttributes) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(xml_escape("µs"), "µs");
}

TEST(ReportSvg, TicksAreRoundAndCoverTheRange) {
  const Ticks pct = nice_ticks(0, 105, 6);
  EXPECT_EQ(pct.lo, 0);
  EXPECT_EQ(pct.hi, 120);
  ASSERT_EQ(pct.values.size(), 7u);
  EXPECT_EQ(pct.values[1], 20);

  const Ticks us = nice_ticks(5406, 5838, 4);
  EXPECT_LE(us.lo, 5406);
  EXPECT_GE(us.hi, 5838);
  EXPECT_EQ(us.values.front(), us.lo);
  EXPECT_EQ(us.values.back(), us.hi);
  EXPECT_EQ(us.values[1] - us.values[0], 200) << "432 µs over about 4 ticks: steps of 200";
  EXPECT_EQ(us.lo, 5400);
  EXPECT_EQ(us.hi, 6000);

  const Ticks flat = nice_ticks(3, 3);  // one value: still a range to draw
  EXPECT_LT(flat.lo, flat.hi);
}

TEST(ReportSvg, FrameMapsValuesUpwardAndClampsOutliers) {
  const Frame f{50, 20, 300, 200, 0, 100};
  EXPECT_DOUBLE_EQ(f.y(0), 220);
  EXPECT_DOUBLE_EQ(f.y(100), 20);
  EXPECT_DOUBLE_EQ(f.y(50), 120);
  EXPECT_DOUBLE_EQ(f.y(250), 20) << "off the scale stays on the frame's edge";
}

TEST(ReportSvg, ElementsCarryTheirClassAndHoverTitle) {
  Svg svg(200, 100, "case-bars", "bf16 <affine>");
  svg.rect(1, 2, 3, 4, "bar s-solution", "flux1-single: 21.8 µs & 86% of copy");
  svg.text(5, 6, "a < b", "tick", "end", -40);
  const std::string s = svg.str();
  EXPECT_NE(s.find(R"(data-plot="case-bars")"), std::string::npos) << s;
  EXPECT_NE(s.find(R"(aria-label="bf16 &lt;affine&gt;")"), std::string::npos) << s;
  EXPECT_NE(s.find(R"(class="bar s-solution"><title>flux1-single: 21.8 µs &amp; 86% of copy</title></rect>)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(R"x(transform="rotate(-40 5.0 6.0)">a &lt; b</text>)x"), std::string::npos) << s;
  EXPECT_EQ(s.rfind("</svg>\n"), s.size() - 7);
}

TEST(ReportSvg, ShortNumbersForTicks) {
  EXPECT_EQ(short_number(0), "0");
  EXPECT_EQ(short_number(120), "120");
  EXPECT_EQ(short_number(2.5), "2.5");
  EXPECT_EQ(short_number(5600), "5.6k");
  EXPECT_EQ(short_number(12000), "12k");
}

}  // namespace
}  // namespace ako::report
