// report.html as a browser shows it: headless Chromium (Debian's package, installed by
// scripts/setup.sh where it exists) renders the page made from the recorded H200 data; the DOM
// it built must hold every figure, each non-empty with its axis labels (and the bars their
// copy-bandwidth line), the console must stay silent, and the screenshot must show something.
// Two controls prove the checks can fail: a page that logs errors, and a blank page.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "chromium.hpp"
#include "common/atomic_file.hpp"
#include "png_probe.hpp"
#include "report_fixture.hpp"

namespace ako::report {
namespace {

using testing::count;
using testing::TempDir;
using testsupport::has;
namespace fs = std::filesystem;

#define AKO_REQUIRE_CHROMIUM(bin)                                                                                     \
  std::string searched_;                                                                                             \
  const auto bin = testing::find_chromium(searched_);                                                                \
  if (!bin)                                                                                                          \
  GTEST_SKIP() << "no headless Chromium (" << searched_                                                             \
               << "): install Debian's chromium-headless-shell (scripts/setup.sh does where the package exists)"

// Every <svg ...>...</svg> of a DOM, in order.
std::vector<std::string> svgs(const std::string& dom) {
  std::vector<std::string> out;
  for (size_t i = dom.find("<svg "); i != std::string::npos; i = dom.find("<svg ", i + 1)) {
    const size_t end = dom.find("</svg>", i);
    if (end == std::string::npos) break;
    out.push_back(dom.substr(i, end + 6 - i));
  }
  return out;
}

std::string kind_of(const std::string& svg) {
  const std::string key = "data-plot=\"";
  const size_t i = svg.find(key);
  return i == std::string::npos ? "" : svg.substr(i + key.size(), svg.find('"', i + key.size()) - i - key.size());
}

TEST(ReportRender, ChromiumShowsEveryFigureWithItsAxesAndNoConsoleMessage) {
  AKO_REQUIRE_CHROMIUM(chromium);
  TempDir tmp;
  testing::make_workspace(tmp.path());
  const auto made = testing::ako("report layernorm --out out", tmp.path());
  ASSERT_EQ(made.status, 0) << made.out;
  const fs::path page = tmp.path() / "out/report.html";

  const int width = 1400, height = 5200;
  const auto r = testing::render_page(*chromium, page, tmp.path(), width, height);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.log;
  EXPECT_TRUE(r.console.empty()) << "console messages:\n" << fmt::format("{}", fmt::join(r.console, "\n"));

  // The DOM Chromium built: every figure the page holds survived parsing.
  const auto figures = svgs(r.dom);
  EXPECT_EQ(figures.size(), count(read_file(page), "<svg ")) << "Chromium dropped or added figures";
  std::map<std::string, int> kinds;
  for (const auto& svg : figures) {
    const std::string kind = kind_of(svg);
    ++kinds[kind];
    EXPECT_EQ(count(svg, R"(class="axis-label")"), 2u) << kind << ": an x and a y label\n" << svg.substr(0, 400);
    if (kind == "case-bars") {
      EXPECT_GE(count(svg, R"(class="bar )"), 20u) << "bars of the reference and the solution per shape";
      EXPECT_EQ(count(svg, R"(class="copy-line")"), 1u) << "the 100% copy-bandwidth line";
      EXPECT_TRUE(has(svg, "% of copy bandwidth") && has(svg, ">shape<") && has(svg, "copy bandwidth 4198 GB/s = 100%"));
    } else if (kind == "history-total" || kind == "history-case") {
      EXPECT_EQ(count(svg, R"(class="pt st-)"), 2u) << "a status marker per iteration";
      EXPECT_TRUE(has(svg, ">iteration<") && has(svg, "(µs)"));
      EXPECT_TRUE(has(svg, "<title>iter 1 [no-change]: ")) << "the hover text";
      EXPECT_TRUE(has(svg, "hypothesis: With weight and bias read after the reductions"));
    } else if (kind == "landscape") {
      EXPECT_GE(count(svg, R"(class="pt lv)"), 150u) << "every variant of the class";
      EXPECT_EQ(count(svg, R"(class="chosen")"), 1u) << "the config's point";
      EXPECT_TRUE(has(svg, "µs (geomean)"));
    } else {
      ADD_FAILURE() << "a figure of unknown kind '" << kind << "'";
    }
  }
  EXPECT_EQ(kinds["case-bars"], 6);
  EXPECT_EQ(kinds["history-total"], 1);
  EXPECT_EQ(kinds["history-case"], 3);
  EXPECT_EQ(kinds["landscape"], 8);
  for (const char* want : {"NVIDIA H200", "ako report layernorm --out out", "Not in this report", "ncu before and after"})
    EXPECT_TRUE(has(r.dom, want)) << want;

  // The screenshot: the size asked for, and a page drawn on it (not one background colour).
  const auto png = testing::probe_png(r.png);
  ASSERT_TRUE(png.ok) << png.error << " (" << r.png.size() << " bytes)";
  EXPECT_EQ(png.width, static_cast<uint32_t>(width));
  EXPECT_EQ(png.height, static_cast<uint32_t>(height));
  EXPECT_GT(png.non_background, uint64_t(width) * height / 50) << "under 2% of the pixels differ from the background";
  EXPECT_GE(png.colours, 16u) << "the series, markers and text colours";
}

TEST(ReportRender, ControlAPageThatLogsErrorsIsCaught) {
  AKO_REQUIRE_CHROMIUM(chromium);
  TempDir tmp;
  write_file_atomically(tmp.path() / "bad.html",
                        "<!DOCTYPE html><html><body><p>x</p><script>console.error('control error');"
                        "missingFunction();</script></body></html>\n");
  const auto r = testing::render_page(*chromium, tmp.path() / "bad.html", tmp.path(), 400, 300);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.log;
  const std::string all = fmt::format("{}", fmt::join(r.console, "\n"));
  EXPECT_EQ(r.console.size(), 2u) << all << "\nlog:\n" << r.log;
  EXPECT_TRUE(has(all, "control error")) << all;
  EXPECT_TRUE(has(all, "ReferenceError")) << all;
}

TEST(ReportRender, ControlABlankPageIsBlank) {
  AKO_REQUIRE_CHROMIUM(chromium);
  TempDir tmp;
  write_file_atomically(tmp.path() / "blank.html", "<!DOCTYPE html><html><body style=\"background:#fff\"></body></html>\n");
  const auto r = testing::render_page(*chromium, tmp.path() / "blank.html", tmp.path(), 400, 300);
  ASSERT_EQ(r.status, 0) << r.command << "\n" << r.log;
  const auto png = testing::probe_png(r.png);
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.non_background, 0u);
  EXPECT_EQ(png.colours, 1u);
  EXPECT_TRUE(r.console.empty());
}

}  // namespace
}  // namespace ako::report
