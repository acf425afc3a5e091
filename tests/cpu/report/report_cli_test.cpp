// `ako report` as a user runs it, on a workspace holding the recorded H200 layernorm data: both
// files written with every figure, the PR tables in report.md, the page self-contained; and
// the errors and notes when an input is missing (which file, and the command that makes it).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "profile/ncu_csv.hpp"
#include "report_fixture.hpp"

namespace ako::report {
namespace {

using testing::ako;
using testing::count;
using testing::make_workspace;
using testing::TempDir;
using testsupport::has;

TEST(ReportCli, WritesThePageAndTheMarkdownFromTheRecordedData) {
  TempDir tmp;
  make_workspace(tmp.path());
  const auto r = ako("report layernorm --out out", tmp.path());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want : {"trajectory: trajectory/layernorm/summary.json (2 iterations, baseline 0, best 0; 2 results read)",
                           "run result: trajectory/layernorm/iter-0/result.json (60 compare cases, 60 correct; NVIDIA H200)",
                           "tuning database: ", "(384 records of NVIDIA H200; 2 of 6 classes measured, 372 usable variants, "
                           "12 refused by the static checks)",
                           "missing: ncu before and after (iteration 0): trajectory/layernorm/iter-0/ncu.json (make it with: "
                           "ako iterate --task layernorm --ncu -m",
                           "REPORT: out/report.html (18 figures, 1 input missing)"})
    EXPECT_TRUE(has(r.out, want)) << want << "\n" << r.out;

  const std::string html = read_file(tmp.path() / "out/report.html");
  EXPECT_EQ(count(html, R"(data-plot="case-bars")"), 6u) << "3 dtypes x affine/noaffine";
  EXPECT_EQ(count(html, R"(data-plot="history-total")"), 1u);
  EXPECT_EQ(count(html, R"(data-plot="history-case")"), 3u);
  EXPECT_EQ(count(html, R"(data-plot="landscape")"), 8u) << "2 measured classes x 4 params";
  EXPECT_EQ(count(html, R"(class="copy-line")"), 6u);
  EXPECT_EQ(count(html, R"(class="bar s-solution")"), 60u);
  EXPECT_EQ(count(html, R"(class="bar s-baseline-0")"), 30u) << "FlashInfer: the affine cases";
  EXPECT_EQ(count(html, R"(class="chosen")"), 8u) << "the config's point in every landscape plot";
  for (const char* want : {"NVIDIA H200 (sm_90a, 132 SMs, L2 60 MiB, driver 13.0), copy bandwidth 4198 GB/s",
                           "<code>ako report layernorm --out out</code>", "started 2026-11-25T07:37:19Z",
                           "ako run task layernorm --seed ", "the config for NVIDIA H200",
                           "hypothesis: LayerNorm moves the bytes RMSNorm moves", "% of copy bandwidth",
                           "copy bandwidth 4198 GB/s = 100%", "Vs <b>flashinfer</b>: geomean <b>",
                           "8 refused by the static checks", "Classes with no record in this database",
                           "cols-3072 (text-512, text-512-cfg, flux1-single, qwen-image, hunyuan-720p)"})
    EXPECT_TRUE(has(html, want)) << want;

  const std::string md = read_file(tmp.path() / "out/report.md");
  for (const char* want :
       {"## layernorm: micro-benchmark\n",
        "| shape | dtype | variant | reference (µs) | flashinfer (µs) | solution (µs) | speedup vs reference | speedup vs "
        "flashinfer | % copy BW | verdict |",
        "| hunyuan-720p | fp32 | affine | ", "| text-512 | bf16 | noaffine | ", " | n/a | ", "### Speedup over the engine",
        "- reference (`input/layernorm`): 1.499x over the summed medians", "- flashinfer: geomean ",
        "over 30 cases timed and correct in both", "## ncu: before / after", "## Iterations",
        "| 1 | [H200] layernorm: weight and bias read at the store", "| no-change | 1.012x | 5606.40 |",
        "## Tuned classes (NVIDIA H200, 384 records", "| cols-2048 | ltx-video | `BLOCK=128 CHUNKS=2 ROWS_PER_BLOCK=1 VEC=8` |",
        "## Not included", "trajectory/layernorm/iter-0/ncu.json", "<sub>Made by `ako report layernorm --out out` on "})
    EXPECT_TRUE(has(md, want)) << want << "\n" << md;
  // Table lines: bench (header, rule, 60 cases), iterations (header, rule, 2), tuned classes (header, rule, 6).
  EXPECT_EQ(count(md, "\n| "), (2u + 60) + (2 + 2) + (2 + 6)) << md;
}

TEST(ReportCli, ThePageIsSelfContained) {
  TempDir tmp;
  make_workspace(tmp.path());
  ASSERT_EQ(ako("report layernorm --out out", tmp.path()).status, 0);
  const std::string html = read_file(tmp.path() / "out/report.html");
  for (const char* never : {"<script", "src=", "<link", "url(", "@import", "<img", "<iframe"})
    EXPECT_FALSE(has(html, never)) << never << ": the page must fetch nothing when opened";
  EXPECT_EQ(count(html, "http"), count(html, R"(xmlns="http://www.w3.org/2000/svg")"))
      << "the only URLs are the SVG namespace";
}

TEST(ReportCli, ARunGivenWithoutTrajectoryOrDatabaseSaysWhatIsMissingAndHow) {
  TempDir tmp;
  make_workspace(tmp.path(), {.trajectory = false, .tuning = false});
  const std::string run = (testing::kFixture / "trajectory/layernorm/iter-1/result.json").string();
  const auto r = ako("report task layernorm --out out --run '" + run + "'", tmp.path());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want :
       {"trajectory: trajectory/layernorm/summary.json not found; the iteration history is left out",
        "missing: iteration history and the ncu pair: trajectory/layernorm/summary.json (make it with: ako iterate --task "
        "layernorm -m",
        "bench/tuning/layernorm.jsonl not found; the tuning landscape is left out",
        "missing: tuning landscape: ", "(make it with: ako tune task layernorm --db ", "REPORT: out/report.html (6 figures, 2 inputs missing)"})
    EXPECT_TRUE(has(r.out, want)) << want << "\n" << r.out;
  const std::string html = read_file(tmp.path() / "out/report.html");
  EXPECT_TRUE(has(html, "<li><b>tuning landscape</b>")) << html.substr(html.find("id=\"missing\""));
  EXPECT_TRUE(has(html, "No trajectory (see"));
  EXPECT_TRUE(has(html, "started 2026-11-25T08:36:17Z")) << "the run given, not a trajectory's";
}

TEST(ReportCli, MissingInputsNamedOnTheCommandLineAreErrorsWithTheirFix) {
  TempDir tmp;
  make_workspace(tmp.path(), {.trajectory = false, .tuning = true});
  const auto no_run = ako("report layernorm --run nowhere.json", tmp.path());
  EXPECT_EQ(no_run.status, 2) << no_run.out;
  EXPECT_TRUE(has(no_run.out, "--run nowhere.json: no such file; make it with `ako run task layernorm --json nowhere.json`"))
      << no_run.out;

  const auto nothing = ako("report layernorm", tmp.path());
  EXPECT_EQ(nothing.status, 2) << nothing.out;
  EXPECT_TRUE(has(nothing.out, "no run result for task layernorm: pass --run FILE")) << nothing.out;
  EXPECT_TRUE(has(nothing.out, "ako iterate --task layernorm")) << nothing.out;

  const std::string run = (testing::kFixture / "trajectory/layernorm/iter-1/result.json").string();
  const auto no_db = ako("report layernorm --run '" + run + "' --tune none.jsonl", tmp.path());
  EXPECT_EQ(no_db.status, 2) << no_db.out;
  EXPECT_TRUE(has(no_db.out, "--tune none.jsonl: no such file; make it with ako tune task layernorm --db none.jsonl"))
      << no_db.out;

  auto other = nlohmann::json::parse(read_file(run));
  other["task"] = "rmsnorm";
  write_file_atomically(tmp.path() / "other.json", other.dump());
  const auto wrong_task = ako("report layernorm --run other.json", tmp.path());
  EXPECT_EQ(wrong_task.status, 2) << wrong_task.out;
  EXPECT_TRUE(has(wrong_task.out, "other.json: a result of task rmsnorm, not layernorm")) << wrong_task.out;

  const auto no_task = ako("report nosuchtask --run '" + run + "'", tmp.path());
  EXPECT_EQ(no_task.status, 2) << no_task.out;
  EXPECT_TRUE(has(no_task.out, "nosuchtask")) << no_task.out;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "report")) << "nothing written on an error";
}

TEST(ReportCli, HelpDescribesTheCommand) {
  TempDir tmp;
  const auto r = ako("report --help", tmp.path());
  EXPECT_EQ(r.status, 0) << r.out;
  for (const char* want : {"report.html", "report.md", "--run", "--tune", "--out", "copy bandwidth", "stall rule",
                           "Exit 0 written; 2"})
    EXPECT_TRUE(has(r.out, want)) << want << "\n" << r.out;
  const auto top = ako("--help", tmp.path());
  EXPECT_TRUE(has(top.out, "report")) << top.out;
}

// No layernorm profile was ever recorded in ako's format (tests/fixtures/report/README.md), so
// the profile stage's own ncu CSV fixture, parsed by ako's parser, stands in for the baseline's
// ncu.json: what is checked is that the pair reaches both documents, and which case is named.
TEST(ReportCli, TheNcuPairComesFromTheTrajectoryWithTheProfiledCase) {
  TempDir tmp;
  make_workspace(tmp.path());
  const auto summary = profile::summarize_ncu(profile::parse_ncu_raw_csv(read_file(AKO_TEST_DIR "/cpu/profile/fixtures/ncu_raw.csv")));
  nlohmann::json ncu = profile::to_json(summary);
  write_file_atomically(tmp.path() / "trajectory/layernorm/iter-0/ncu.json", ncu.dump(2));
  auto r = ako("report layernorm --out out", tmp.path());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "ncu before and after: trajectory/layernorm/iter-0/ncu.json (hunyuan-720p fp32 noaffine (the "
                         "iteration's hottest case))"))
      << "without a recorded case, the rule iterate profiles by\n" << r.out;
  EXPECT_TRUE(has(r.out, "REPORT: out/report.html (18 figures)")) << "nothing missing\n" << r.out;
  std::string md = read_file(tmp.path() / "out/report.md");
  for (const char* want : {"| metric | before (iter 0) | after (iter 0) |", "| DRAM throughput (% of peak) | 91.5 | 91.5 |",
                           "| registers per thread | 30 | 30 |", "| dominant stall | long_scoreboard (38.92 cycles/instr) |",
                           "| duration (µs) | 492.77 | 492.77 |"})
    EXPECT_TRUE(has(md, want)) << want << "\n" << md;
  EXPECT_FALSE(has(md, "## Not included")) << md;

  ncu["case"] = "flux1-single fp32 affine";  // as `ako iterate --ncu` now records it
  write_file_atomically(tmp.path() / "trajectory/layernorm/iter-0/ncu.json", ncu.dump(2));
  r = ako("report layernorm --out out", tmp.path());
  ASSERT_EQ(r.status, 0) << r.out;
  md = read_file(tmp.path() / "out/report.md");
  EXPECT_TRUE(has(md, "| case | flux1-single fp32 affine | flux1-single fp32 affine |")) << md;
  EXPECT_TRUE(has(read_file(tmp.path() / "out/report.html"), "<td>DRAM throughput (% of peak)</td><td>91.5</td><td>91.5</td>"));
}

}  // namespace
}  // namespace ako::report
