// What the report draws, computed from the recorded H200 layernorm data (tests/fixtures/report/):
// the per-case bars and their facets, the speedup over FlashInfer, the iteration history and
// the tuning landscape, checked against the recorded numbers themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "iterate/trajectory.hpp"
#include "report/case_bars.hpp"
#include "report/history.hpp"
#include "report/landscape.hpp"
#include "report_fixture.hpp"
#include "search/space.hpp"
#include "search/tuner.hpp"
#include "task/spec.hpp"

namespace ako::report {
namespace {

using testing::kFixture;
using testing::TempDir;

RunResult fixture_run(int iter) {
  return run_result_from_json(nlohmann::json::parse(
      read_file(kFixture / "trajectory/layernorm" / ("iter-" + std::to_string(iter)) / "result.json")));
}

TEST(ReportData, BarsAreFacetedByDtypeAndVariantInPercentOfCopyBandwidth) {
  const RunResult run = fixture_run(1);
  const CaseBars bars = case_bars(run);
  EXPECT_EQ(bars.series, (std::vector<std::string>{"reference", "solution", "flashinfer"}));
  EXPECT_NEAR(bars.copy_bandwidth_gbs, run.device.copy_bandwidth_gbs, 1e-9);
  ASSERT_EQ(bars.facets.size(), 6u);
  const std::vector<std::pair<std::string, std::string>> want = {{"bf16", "affine"}, {"bf16", "noaffine"},
                                                                 {"fp16", "affine"}, {"fp16", "noaffine"},
                                                                 {"fp32", "affine"}, {"fp32", "noaffine"}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(bars.facets[i].dtype, want[i].first);
    EXPECT_EQ(bars.facets[i].variant, want[i].second);
    ASSERT_EQ(bars.facets[i].groups.size(), 10u) << "one group per shape";
    for (const auto& g : bars.facets[i].groups) {
      ASSERT_EQ(g.pct.size(), 3u);
      EXPECT_TRUE(g.pct[0] && g.pct[1]) << g.shape;
      EXPECT_EQ(g.pct[2].has_value(), want[i].second == "affine") << "FlashInfer runs on the affine cases only";
    }
  }
  // Every bar is the recorded bytes over the recorded median against the recorded copy bandwidth:
  // for the solution exactly the run's own pct_copy_bw.
  size_t checked = 0;
  for (const auto& c : run.cases) {
    if (c.kind != "compare") continue;
    for (const auto& f : bars.facets)
      for (const auto& g : f.groups)
        if (f.dtype == c.dtype && f.variant == variant_label(c) && g.shape == c.shape) {
          EXPECT_NEAR(*g.pct[1], c.pct_copy_bw, 1e-6) << g.titles[1];
          EXPECT_NEAR(*g.pct[0], c.bytes / c.reference_time->iqm_us * 1e-3 / run.device.copy_bandwidth_gbs * 100, 1e-6);
          if (!c.baselines.empty() && c.baselines[0].time) {
            EXPECT_NEAR(*g.pct[2], c.baselines[0].pct_copy_bw, 1e-6);
          }
          EXPECT_NE(g.titles[1].find(" µs, "), std::string::npos) << g.titles[1];
          ++checked;
        }
  }
  EXPECT_EQ(checked, 60u);
}

TEST(ReportData, BenchTableGivesTheSpeedupOverEachBaseline) {
  const RunResult run = fixture_run(1);
  const BenchTable t = bench_table(run);
  ASSERT_EQ(t.baselines, std::vector<std::string>{"flashinfer"});
  ASSERT_EQ(t.rows.size(), 60u);
  ASSERT_EQ(t.over_baselines.size(), 1u);
  const BaselineSummary& fi = t.over_baselines[0];
  EXPECT_EQ(fi.cases, 30) << "affine cases: where FlashInfer ran";
  double log_sum = 0;
  for (const auto& c : run.cases)
    if (c.kind == "compare" && !c.baselines.empty() && c.baselines[0].time)
      log_sum += std::log(c.baselines[0].time->iqm_us / c.solution_time->iqm_us);
  EXPECT_NEAR(fi.geomean, std::exp(log_sum / 30), 1e-9);
  EXPECT_LE(fi.min, fi.geomean);
  EXPECT_GE(fi.max, fi.geomean);
  EXPECT_EQ(t.summary.correct, 60);
  for (const auto& r : t.rows)
    if (r.variant == "noaffine") {
      EXPECT_FALSE(r.baseline_us[0]);
      EXPECT_EQ(r.baseline_note[0], "n/a");
    }
}

TEST(ReportData, HistoryFollowsTheTrajectoryAndTheHottestCases) {
  const auto summary = iterate::trajectory_summary_from_json(
      nlohmann::json::parse(read_file(kFixture / "trajectory/layernorm/summary.json")), "summary.json");
  const std::map<int, RunResult> results = {{0, fixture_run(0)}, {1, fixture_run(1)}};
  const History h = build_history(summary, results);
  ASSERT_EQ(h.points.size(), 2u);
  EXPECT_EQ(h.points[0].status, "baseline");
  EXPECT_EQ(h.points[1].status, "no-change");
  EXPECT_NEAR(*h.points[0].total_us, 5671.937, 1e-6);
  EXPECT_NEAR(*h.points[1].total_us, 5606.4005, 1e-6);
  EXPECT_EQ(h.points[1].stall_run, 1) << "+1.2% over the best is under the rule's 3%";
  EXPECT_FALSE(h.points[1].stall_fired);
  EXPECT_NE(h.points[1].hypothesis.find("weight and bias read after the reductions"), std::string::npos);
  ASSERT_EQ(h.hottest.size(), 3u);
  // The hottest: the best iteration's (0) largest solution medians, in order.
  std::vector<double> medians;
  for (const auto& c : results.at(0).cases)
    if (c.kind == "compare" && c.verdict == Verdict::correct && c.solution_time) medians.push_back(c.solution_time->iqm_us);
  std::sort(medians.rbegin(), medians.rend());
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(h.hottest[i].iqm_us.size(), 2u);
    ASSERT_TRUE(h.hottest[i].iqm_us[0] && h.hottest[i].iqm_us[1]) << h.hottest[i].label;
    EXPECT_DOUBLE_EQ(*h.hottest[i].iqm_us[0], medians[i]) << h.hottest[i].label;
  }
  EXPECT_EQ(h.hottest[0].label.rfind("hunyuan-720p fp32", 0), 0u) << h.hottest[0].label;
}

TEST(ReportData, LandscapeScoresEveryVariantOfAClassAsTheTunerDoes) {
  TempDir tmp;
  testing::make_workspace(tmp.path());
  task::TaskSpec spec = task::load_task(tmp.path(), "layernorm");
  const Landscape l = load_landscape(spec, tmp.path() / "bench/tuning/layernorm.jsonl");
  EXPECT_EQ(l.device, "NVIDIA H200");
  EXPECT_EQ(l.records, 384u);
  EXPECT_EQ(l.config_file, "solution/layernorm/configs/device_name=NVIDIA_H200.json");
  std::map<std::string, const ClassLandscape*> by_name;
  for (const auto& c : l.classes) by_name[c.name] = &c;
  ASSERT_TRUE(by_name.count("cols-1536") && by_name.count("cols-2048"));
  const ClassLandscape& c1536 = *by_name["cols-1536"];
  const ClassLandscape& c2048 = *by_name["cols-2048"];
  EXPECT_EQ(c1536.shapes, std::vector<std::string>{"wan13b-480p"});
  EXPECT_EQ(c2048.shapes, std::vector<std::string>{"ltx-video"});
  // The recorded tune: 192 variants per shape, of which 8 and 4 the static checks refused.
  EXPECT_EQ(c1536.refused, 8u);
  EXPECT_EQ(c2048.refused, 4u);
  EXPECT_EQ(c1536.variants.size() + c1536.wrong + c1536.incomplete, 184u);
  EXPECT_EQ(c2048.variants.size() + c2048.wrong + c2048.incomplete, 188u);
  EXPECT_EQ(c2048.param_names, (std::vector<std::string>{"BLOCK", "CHUNKS", "ROWS_PER_BLOCK", "VEC"}));
  // The chosen point is the config's, and was measured.
  EXPECT_EQ(search::params_text(c2048.chosen), "BLOCK=128 CHUNKS=2 ROWS_PER_BLOCK=1 VEC=8");
  ASSERT_TRUE(c2048.chosen_score && c2048.winner);
  EXPECT_EQ(c2048.winner->params, c2048.chosen);
  // The winner is the fastest, or within the tuner's 1% tie of it (then fewer registers won).
  for (const auto& v : c2048.variants) EXPECT_GE(v.score_us * (1 + search::kTieRel), c2048.winner->score_us * (1 - 1e-12));
  // Classes whose shapes the database never measured are there, empty.
  ASSERT_TRUE(by_name.count("cols-3072"));
  EXPECT_TRUE(by_name["cols-3072"]->variants.empty());
}

TEST(ReportData, LandscapeWinnersAgreeWithATuneReplayOfTheSameRecords) {
  TempDir tmp;
  testing::make_workspace(tmp.path());
  const auto r = testing::ako("tune task layernorm --replay bench/tuning/layernorm.jsonl --strategy exhaustive "
                              "--shapes wan13b-480p,ltx-video --json tune.json --no-progress",
                              tmp.path());
  ASSERT_EQ(r.status, 0) << r.out;
  const auto summary = nlohmann::json::parse(read_file(tmp.path() / "tune.json"));
  task::TaskSpec spec = task::load_task(tmp.path(), "layernorm");
  const Landscape l = load_landscape(spec, tmp.path() / "bench/tuning/layernorm.jsonl");
  size_t compared = 0;
  for (const auto& c : summary["classes"])
    for (const auto& mine : l.classes)
      if (mine.name == c["name"] && c.contains("winner")) {
        ASSERT_TRUE(mine.winner) << mine.name;
        EXPECT_EQ(nlohmann::json(mine.winner->params), c["winner"]) << mine.name;
        EXPECT_NEAR(mine.winner->score_us, c["score_us"].get<double>(), 1e-9) << mine.name;
        ++compared;
      }
  EXPECT_EQ(compared, 2u) << summary.dump(1);
}

}  // namespace
}  // namespace ako::report
