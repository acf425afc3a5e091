// The 100% copy-bandwidth line's label: the full text over a panel wide enough for it, a short
// one over a panel of one shape (the full text ran past the y axis there, clipped on the page).
#include <gtest/gtest.h>

#include "report/plots.hpp"

namespace ako::report {
namespace {

CaseBars bars_with(size_t shapes) {
  CaseBars bars;
  bars.series = {"reference", "solution"};
  bars.copy_bandwidth_gbs = 4240;
  Facet f{"bf16", "weight", {}};
  for (size_t i = 0; i < shapes; ++i)
    f.groups.push_back(BarGroup{"shape-" + std::to_string(i), {50.0, 80.0}, {"ref", "sol"}});
  bars.facets.push_back(f);
  return bars;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(ReportPlots, TheCopyLineLabelIsShortOverANarrowPanel) {
  const CaseBars one = bars_with(1);
  const std::string narrow = facet_svg(one.facets[0], one, bars_y_max(one));
  EXPECT_TRUE(has(narrow, ">100% copy<")) << narrow;
  EXPECT_FALSE(has(narrow, "copy bandwidth 4240 GB/s = 100%")) << narrow;
  const CaseBars ten = bars_with(10);
  const std::string wide = facet_svg(ten.facets[0], ten, bars_y_max(ten));
  EXPECT_TRUE(has(wide, "copy bandwidth 4240 GB/s = 100%")) << wide;
}

}  // namespace
}  // namespace ako::report
