// The report as people and scripts read it: every kind of check says ran or skipped and why,
// a regression is visible in the table, markdown and JSON, and the verdict line is last.
#include <gtest/gtest.h>

#include "gate/render.hpp"
#include "gate_fixtures.hpp"

namespace ako::gate {
namespace {

using namespace testing;

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

TEST(GateRender, TableShowsCoverageRegressionAndVerdict) {
  const Baseline b = baseline_from(gpu_outcome());
  const GateReport r = evaluate_gate({gpu_outcome(11.0)}, &b, options());
  const std::string t = render_table(r);
  for (const char* w : {"task rmsnorm", "correctness  ran", "timing       ran", "resources    ran",
                        "flux1-single bf16 weight", "+10.0%", "regression", "GATE: FAIL (1 failed"})
    EXPECT_TRUE(has(t, w)) << w << "\n" << t;
}

TEST(GateRender, NoGpuTableSaysWhatWasSkipped) {
  const Baseline b = baseline_from(gpu_outcome());
  const std::string t = render_table(evaluate_gate({cpu_outcome()}, &b, options()));
  EXPECT_TRUE(has(t, "correctness  SKIPPED  no GPU (libcuda.so.1 not found)")) << t;
  EXPECT_TRUE(has(t, "timing       SKIPPED  no GPU")) << t;
  EXPECT_TRUE(has(t, "GATE: PASS")) << t;
}

TEST(GateRender, MarkdownHasTablesAndVerdict) {
  const Baseline b = baseline_from(gpu_outcome());
  const std::string md = render_markdown(evaluate_gate({gpu_outcome(11.0, 15.0)}, &b, options()));
  for (const char* w : {"## ako gate: FAIL", "| task | check | ran | why / what |", "### Timing", "| FAIL |",
                        "improved", "### Findings"})
    EXPECT_TRUE(has(md, w)) << w << "\n" << md;
}

TEST(GateRender, JsonCarriesEveryCheckAndTheVerdict) {
  const Baseline b = baseline_from(gpu_outcome());
  const auto j = report_json(evaluate_gate({gpu_outcome(11.0)}, &b, options()));
  EXPECT_EQ(j["schema"], "ako.gate/1");
  EXPECT_FALSE(j["passed"].get<bool>());
  EXPECT_EQ(j["counts"]["fail"], 1);
  bool seen = false;
  for (const auto& c : j["checks"])
    if (c["status"] == "fail") {
      seen = true;
      EXPECT_EQ(c["check"], "timing");
      EXPECT_NEAR(c["timing"]["change_pct"].get<double>(), 10.0, 1e-9);
    }
  EXPECT_TRUE(seen);
  EXPECT_EQ(j["coverage"].size(), 5u);
}

TEST(GateRender, CaseKeyMatchesTheTaskLabel) {
  // The baseline keys on Case::label(): "<shape> <dtype>" then each flag or no<flag>.
  EXPECT_EQ(case_key(compare_case("flux1-single", false, 1, 1)), "flux1-single bf16 noweight");
  CaseResult c = compare_case("x", true, 1, 1);
  c.flags = {{"weight", true}, {"bias", false}};
  EXPECT_EQ(case_key(c), "x bf16 nobias weight");
}

}  // namespace
}  // namespace ako::gate
