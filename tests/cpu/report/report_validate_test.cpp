// `ako report --validate FILE`: the model-level section from `ako validate` results
// (tests/fixtures/validate/), in report.md and on the page, and a missing file as an error.
#include <gtest/gtest.h>

#include "common/atomic_file.hpp"
#include "report_fixture.hpp"

namespace ako::report {
namespace {

using testing::ako;
using testing::count;
using testing::make_workspace;
using testing::TempDir;
using testsupport::has;

const std::filesystem::path kValidate = std::filesystem::path(AKO_TEST_DIR) / "fixtures" / "validate";

TEST(ReportValidate, ShowsEachModelLevelResultInBothDocuments) {
  TempDir tmp;
  make_workspace(tmp.path());
  const auto r = ako("report layernorm --out out --validate '" + (kValidate / "flux1-pass.json").string() +
                         "' --validate '" + (kValidate / "flux1-fail.json").string() + "'",
                     tmp.path());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "flux1-pass.json (flux1 on NVIDIA H200: pass, 4 families)")) << r.out;
  EXPECT_TRUE(has(r.out, "flux1-fail.json (flux1 on NVIDIA H200: fail, 4 families)")) << r.out;

  const std::string md = read_file(tmp.path() / "out/report.md");
  for (const char* want : {"## Model-level validation (`ako validate`)", "### flux1: pass", "### flux1: FAIL",
                           "| backend | mode | step ms | family us | GPU us | vs engine | rel L2 | max abs |",
                           "| ako | eager | 6.810 | 540 | 6540 | 1.03x | 4.30e-03 | 0.0625 |",
                           "| qknorm_rope | 6 | yes | 1.25x | 1.05x | 1.05x | does not transfer |",
                           "- **failed**: gated_act: fallback", "Sites where the ako backend ran the engine's kernel:",
                           "--validate "})
    EXPECT_TRUE(has(md, want)) << want << "\n" << md;

  const std::string html = read_file(tmp.path() / "out/report.html");
  EXPECT_EQ(count(html, "<section id=\"models\">"), 1u);
  EXPECT_EQ(count(html, "<h3>flux1: "), 2u);
  EXPECT_TRUE(has(html, "<a href=\"#models\">model-level</a>"));
  EXPECT_TRUE(has(html, "<td>qknorm_rope</td><td class=\"n\">6</td>"));
}

TEST(ReportValidate, WithoutItThereIsNoModelSectionAndAMissingFileIsAnError) {
  TempDir tmp;
  make_workspace(tmp.path());
  const auto plain = ako("report layernorm --out out", tmp.path());
  ASSERT_EQ(plain.status, 0) << plain.out;
  EXPECT_FALSE(has(read_file(tmp.path() / "out/report.md"), "Model-level"));
  EXPECT_FALSE(has(read_file(tmp.path() / "out/report.html"), "id=\"models\""));

  const auto missing = ako("report layernorm --out out2 --validate nowhere.json", tmp.path());
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_TRUE(has(missing.out, "--validate nowhere.json: no such file; make it with `ako validate --model M --json "
                               "nowhere.json` on a GPU machine")) << missing.out;
}

}  // namespace
}  // namespace ako::report
