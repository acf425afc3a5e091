// The drift sentinels of `ako tune` (pipeline/drift_sentinel.hpp): which cases time the reference
// again, which are measured again when one reads slow, and GpuEvaluator doing it with a fake
// worker (NVRTC compiles the spilly fixture's variants for real) whose GPU turns slow for one run.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "cpu/search/search_fixture.hpp"
#include "pipeline/drift_sentinel.hpp"
#include "pipeline/tune_evaluator.hpp"
#include "task/spec.hpp"

namespace ako::pipeline {
namespace {

namespace fs = std::filesystem;

TEST(DriftSentinels, OnePerSegmentOnTheFastestRecordedReference) {
  const std::vector<std::optional<double>> recorded{12.0, 4.0, std::nullopt, 9.0,  // segment 0: index 1
                                                    std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                                    30.0, 31.0};                     // segment 2: index 8
  EXPECT_EQ(choose_sentinels(recorded, 4), (std::vector<size_t>{1, 8}));
  EXPECT_TRUE(choose_sentinels({}, 4).empty());
  EXPECT_TRUE(choose_sentinels(recorded, 0).empty());
}

TEST(DriftSentinels, TalliesOfSeveralLanesAddUpAndKeepTheHighestReading) {
  SentinelTally a, b;
  a.add({0, "text bf16", 4.0, 4.1}, false, "t1");
  a.add({1, "wan bf16", 100.0, {}}, true, "t2");       // a probe that read nothing
  b.add({0, "flux bf16", 16.0, 24.0}, true, "t3");
  EXPECT_FALSE(b.merge(SentinelTally{}));
  EXPECT_TRUE(a.merge(b));
  EXPECT_EQ(a.readings, 1u);
  EXPECT_EQ(a.probe_readings, 1u);
  EXPECT_EQ(a.probes_unread, 1u);
  EXPECT_DOUBLE_EQ(a.highest_ratio, 1.5);
  EXPECT_EQ(a.highest_label, "flux bf16");
  EXPECT_EQ(a.highest_at, "t3");
  EXPECT_TRUE(a.highest_probe);
}

TEST(DriftSentinels, ASlowReadingMarksItsSegmentAndBothNeighbours) {
  std::vector<SentinelReading> readings{{1, "a", 4.0, 4.1}, {9, "a", 4.0, 9.5}, {13, "b", 30.0, 30.3}};
  const std::vector<bool> again = drifted_cases(20, readings, 4, 0.05);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(again[i], i >= 2 && i < 17) << i;  // 9 - 7 .. 9 + 7: segments 1-3 and more

  // Within the tolerance is not drift; past it is; an untimed sentinel says nothing.
  readings = {{1, "a", 4.0, 4.19}, {5, "a", 4.0, std::nullopt}};
  const auto none = drifted_cases(8, readings, 4, 0.05);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
  readings = {{6, "a", 4.0, 4.21}};
  const auto last = drifted_cases(8, readings, 4, 0.05);
  EXPECT_EQ(std::count(last.begin(), last.end(), true), 8);  // segment 1 and its one neighbour
  readings = {{0, "a", 4.0, 9.0}};
  const auto front = drifted_cases(20, readings, 4, 0.05);
  EXPECT_EQ(std::count(front.begin(), front.end(), true), 8);  // from the first case, two segments on
  EXPECT_EQ(describe_worst_drift({{1, "a", 4.0, 4.21}, {2, "flux bf16", 4.0, 8.0}}, 0.05),
            "the reference of 'flux bf16' timed 8.00 us against 4.00 us recorded (2.00x)");
  EXPECT_EQ(describe_worst_drift({{1, "a", 4.0, 4.1}}, 0.05), "");
}

// A fake GPU: every case correct; the reference and the solution take `ref_us` / `sol_us` of the
// run, which the test sets per worker run (run 0 is the first batch, which records references).
struct SlowWindowWorker {
  std::function<std::pair<double, double>(int run)> times;
  std::map<std::string, double> reference_us_by_label;  // a label's own reference time, in every run
  std::string fails_in_second_run;                      // a label whose case fails (times nothing) in run 1
  int runs = 0;
  std::vector<size_t> cases_per_run, references_per_run;
  exec::WorkerRun operator()(const exec::WorkerJob& job, const exec::ClientOptions&, const exec::ClientCallbacks&) {
    const int run_index = runs++;
    const auto [window_ref_us, sol_us] = times(run_index);
    cases_per_run.push_back(job.cases.size());
    references_per_run.push_back(static_cast<size_t>(
        std::count_if(job.cases.begin(), job.cases.end(), [](const auto& c) { return c.time_reference; })));
    exec::WorkerRun run;
    for (const auto& c : job.cases) {
      CaseResult r;
      r.index = c.index;
      if (run_index == 1 && c.label == fails_in_second_run) {
        r.verdict = Verdict::failed;
        run.results.push_back(r);
        continue;
      }
      const auto own = reference_us_by_label.find(c.label);
      const double ref_us = own == reference_us_by_label.end() ? window_ref_us : own->second;
      r.verdict = Verdict::correct;
      r.solution_time = TimingStats{};
      r.solution_time->iqm_us = r.solution_time->median_us = sol_us;
      if (c.time_reference) {
        r.reference_time = TimingStats{};
        r.reference_time->iqm_us = r.reference_time->median_us = ref_us;
      }
      run.results.push_back(r);
    }
    return run;
  }
};

struct Measured {
  std::vector<search::DbRecord> second;   // the second batch's records
  size_t windows = 0, remeasured = 0;
  std::vector<std::string> notes;
  std::optional<double> reference_after;  // the small shape's recorded reference after the batch
  std::vector<size_t> cases_per_run, references_per_run;
  std::vector<double> pauses;
  std::string probe_after;                // the probe's label after the second batch
  SentinelTally tally;
};

// Two batches of the spilly fixture: its N=4 variant (TIMER 0) on `first_shapes`, then N=8 on
// `second_shapes` (default: both shapes each time).
Measured two_batches(std::function<std::pair<double, double>(int)> times,
                     std::vector<std::string> first_shapes = {"small", "large"},
                     std::vector<std::string> second_shapes = {"small", "large"},
                     std::function<void(SlowWindowWorker&)> setup = {}) {
  search::testing::ScratchDir dir("drift");
  const task::TaskSpec spec = task::load_task(fs::path(AKO_TEST_DIR) / "cpu/pipeline/fixtures/static_tune", "spilly");
  auto worker = std::make_shared<SlowWindowWorker>();
  worker->times = std::move(times);
  if (setup) setup(*worker);
  GpuEvaluatorOptions go;
  go.build.arch = "sm_90a";
  go.build.compile.cache_dir = dir.path() / "cache";
  go.build.compile.jobs = 2;
  go.build.root = spec.root;
  go.gpu_uuid = "GPU-fake";
  go.run_worker = [worker](const auto& job, const auto& copt, const auto& cb) { return (*worker)(job, copt, cb); };
  auto pauses = std::make_shared<std::vector<double>>();
  go.pause = [pauses](double s) { pauses->push_back(s); };
  GpuEvaluator eval(spec, go);
  auto pick = [&](const std::vector<std::string>& names) {
    std::vector<const task::ShapeSpec*> out;
    for (const auto& s : spec.shapes)
      if (std::find(names.begin(), names.end(), s.name) != names.end()) out.push_back(&s);
    return out;
  };
  const auto first = eval.evaluate({{{{"N", 4}, {"TIMER", 0}}, pick(first_shapes)}});
  EXPECT_EQ(first.size(), first_shapes.size());
  Measured m;
  m.second = eval.evaluate({{{{"N", 8}, {"TIMER", 0}}, pick(second_shapes)}});
  m.windows = eval.drift_windows;
  m.remeasured = eval.remeasured;
  m.notes = eval.drift_notes();
  m.reference_after = eval.references.time_us("small fp32");
  m.cases_per_run = worker->cases_per_run;
  m.references_per_run = worker->references_per_run;
  m.pauses = *pauses;
  m.probe_after = eval.probe_label();
  m.tally = eval.sentinel_tally();
  return m;
}

TEST(DriftSentinels, ASlowWindowIsMeasuredAgainAndTheCleanRunStands) {
  // Run 1 (the second batch) is slow by a constant 8 us, as on the shared H200; run 2 is not.
  const Measured m = two_batches([](int run) {
    return run == 1 ? std::pair{20.0, 18.0} : std::pair{12.0, 10.0};
  });
  ASSERT_EQ(m.second.size(), 2u);
  for (const auto& r : m.second) {
    EXPECT_EQ(r.verdict, "correct") << r.reason;
    EXPECT_DOUBLE_EQ(r.time_us, 10.0) << r.shape << ": the slow run's time stood";
    EXPECT_DOUBLE_EQ(r.reference_us, 12.0) << r.shape;
  }
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{2, 2, 2}));
  EXPECT_TRUE(m.pauses.empty()) << "the first re-measure follows at once";
  EXPECT_EQ(m.windows, 1u);
  EXPECT_EQ(m.remeasured, 2u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("GPU-fake, "), std::string::npos) << m.notes[0];
  EXPECT_NE(m.notes[0].find("timed 20.00 us against 12.00 us recorded (1.67x): the GPU was slower for a while; 2 cases "
                            "measured again"),
            std::string::npos)
      << m.notes[0];
}

TEST(DriftSentinels, AWindowThatOutlastsTheTriesKeepsTheLastRunAndSaysSo) {
  const Measured m = two_batches([](int run) { return run >= 1 ? std::pair{20.0, 18.0} : std::pair{12.0, 10.0}; });
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{2, 2, 2, 2, 2, 2}));  // the batch and kMaxRemeasures more
  EXPECT_EQ(m.windows, static_cast<size_t>(kMaxRemeasures));
  EXPECT_EQ(m.pauses, (std::vector<double>{5, 15, 30}));  // before the second, third and fourth try
  ASSERT_EQ(m.notes.size(), static_cast<size_t>(kMaxRemeasures) + 1);
  EXPECT_NE(m.notes[1].find("2 cases measured again after a 5 s pause"), std::string::npos) << m.notes[1];
  EXPECT_NE(m.notes.back().find("still slower after 4 re-measures; 2 cases keep what the last measured"),
            std::string::npos)
      << m.notes.back();
  for (const auto& r : m.second) EXPECT_DOUBLE_EQ(r.time_us, 18.0);
}

TEST(DriftSentinels, AWindowThatEndsDuringThePausesIsMeasuredCleanAtTheNextTry) {
  // Slow for the batch and the immediate re-measure; clean after the first pause.
  const Measured m = two_batches([](int run) { return run == 1 || run == 2 ? std::pair{20.0, 18.0} : std::pair{12.0, 10.0}; });
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{2, 2, 2, 2}));
  EXPECT_EQ(m.pauses, (std::vector<double>{5}));
  EXPECT_EQ(m.windows, 2u);
  for (const auto& r : m.second) EXPECT_DOUBLE_EQ(r.time_us, 10.0);
}

TEST(DriftSentinels, AClassFirstBatchIsCheckedByAProbeFromTheBatchBefore) {
  // The second batch runs the large shape only: its reference is timed there for the first time,
  // in the slow window, so no case of it can be a sentinel. A copy of the first batch's small case
  // (recorded 12 us) is its probe: it reads 20, and the batch (its reference included) is measured
  // again.
  const Measured m = two_batches([](int run) { return run == 1 ? std::pair{20.0, 18.0} : std::pair{12.0, 10.0}; },
                                 {"small"}, {"large"});
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{1, 2, 2}));      // the large case and the probe, twice
  EXPECT_EQ(m.references_per_run, (std::vector<size_t>{1, 2, 2}));  // the large claim and the probe
  ASSERT_EQ(m.second.size(), 1u);
  EXPECT_DOUBLE_EQ(m.second[0].time_us, 10.0);
  EXPECT_DOUBLE_EQ(m.second[0].reference_us, 12.0) << "the reference first timed in the window was timed again";
  EXPECT_EQ(m.windows, 1u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("the reference of 'small fp32' timed 20.00 us against 12.00 us recorded"), std::string::npos)
      << m.notes[0];
  EXPECT_EQ(m.tally.probe_readings, 2u);  // the batch's probe, then the re-measure's
  EXPECT_DOUBLE_EQ(m.tally.highest_ratio, 20.0 / 12.0);
  EXPECT_TRUE(m.tally.highest_probe);
}

TEST(DriftSentinels, TheProbeStaysTheTunesFastestRecordedReference) {
  // small's reference takes 12 us, large's 150: after a batch of large alone the probe is still
  // small's case, where a delay of a few us per launch stands out (on 150 us it hides under 5%).
  const Measured m = two_batches([](int) { return std::pair{12.0, 10.0}; }, {"small"}, {"large"}, [](SlowWindowWorker& w) {
    w.reference_us_by_label = {{"small fp32", 12.0}, {"large fp32", 150.0}};
  });
  EXPECT_EQ(m.probe_after, "small fp32");
  EXPECT_TRUE(m.notes.empty());
}

TEST(DriftSentinels, AProbeThatReadsNothingIsReplacedByTheNextBatchsFastest) {
  // The probe (small's case) fails in the second batch, as a pruned cubin would: large's case
  // probes from then on.
  const Measured m = two_batches([](int) { return std::pair{12.0, 10.0}; }, {"small"}, {"large"}, [](SlowWindowWorker& w) {
    w.reference_us_by_label = {{"small fp32", 12.0}, {"large fp32", 150.0}};
    w.fails_in_second_run = "small fp32";
  });
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{1, 2}));  // the large case and the probe
  EXPECT_EQ(m.probe_after, "large fp32");
  EXPECT_EQ(m.remeasured, 0u);
  EXPECT_EQ(m.tally.probes_unread, 1u) << "the --json summary says a probe read nothing";
  EXPECT_EQ(m.tally.probe_readings, 0u);
}

TEST(DriftSentinels, AFasterReadingLowersTheRecordingAndMeasuresNothingAgain) {
  // The first batch ran in the slow window (its reference 20 us); later the GPU is itself again.
  const Measured m = two_batches([](int run) { return run == 0 ? std::pair{20.0, 18.0} : std::pair{12.0, 10.0}; });
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{2, 2}));
  EXPECT_EQ(m.remeasured, 0u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("the reference of 'small fp32' timed 12.00 us against 20.00 us first recorded (0.60x): it "
                            "was first timed in a slow window"),
            std::string::npos)
      << m.notes[0];
  ASSERT_TRUE(m.reference_after);
  EXPECT_DOUBLE_EQ(*m.reference_after, 12.0);
}

TEST(DriftSentinels, SteadyTimesAddOneReferenceTimingPerSegmentAndNothingElse) {
  const Measured m = two_batches([](int) { return std::pair{12.0, 10.0}; });
  EXPECT_EQ(m.cases_per_run, (std::vector<size_t>{2, 2}));
  EXPECT_EQ(m.references_per_run, (std::vector<size_t>{2, 1}));  // the first batch's claims, then one sentinel
  EXPECT_EQ(m.remeasured, 0u);
  EXPECT_TRUE(m.notes.empty());
  EXPECT_EQ(m.tally.readings, 1u);
  EXPECT_EQ(m.tally.probe_readings, 0u);
  EXPECT_DOUBLE_EQ(m.tally.highest_ratio, 1.0);
  EXPECT_EQ(m.tally.highest_label, "small fp32");
  for (const auto& r : m.second) EXPECT_DOUBLE_EQ(r.time_us, 10.0);
}

}  // namespace
}  // namespace ako::pipeline
