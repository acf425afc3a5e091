// Where a run's wall time went (pipeline/run_phases.hpp, RunResult::phases): the seconds per
// phase from the event times execute_run records.
#include <gtest/gtest.h>

#include "pipeline/run_phases.hpp"

namespace ako::pipeline {
namespace {

using Clock = PhaseClock::Clock;
using std::chrono::milliseconds;

TEST(RunPhases, SecondsPerPhaseFromTheEventTimes) {
  PhaseClock c;
  const Clock::time_point t = c.start;
  c.worker_spawn = t + milliseconds(1);
  c.prepared = t + milliseconds(100);
  c.built = t + milliseconds(130);
  c.device = t + milliseconds(200);
  // Case 0 timed, case 1 validated only.
  c.cases.push_back({0, t + milliseconds(210), t + milliseconds(300), t + milliseconds(1300), true});
  c.cases.push_back({1, t + milliseconds(1300), t + milliseconds(1300), t + milliseconds(1400), false});
  c.first_begin = t + milliseconds(210);
  c.last_result = t + milliseconds(1400);
  c.worker_done = t + milliseconds(1450);
  const nlohmann::json j = c.to_json({{"cuda_init", 0.12}}, t + milliseconds(1500));
  EXPECT_NEAR(j["prepare_s"], 0.100, 1e-9);
  EXPECT_NEAR(j["compile_s"], 0.030, 1e-9);
  EXPECT_NEAR(j["worker_start_s"], 0.199, 1e-9);
  EXPECT_EQ(j["worker_setup_s"]["cuda_init"], 0.12);
  EXPECT_NEAR(j["worker_to_first_case_s"], 0.010, 1e-9);
  EXPECT_NEAR(j["cases_s"], 1.190, 1e-9);
  EXPECT_NEAR(j["validate_s"], 0.090 + 0.100, 1e-9);
  EXPECT_NEAR(j["time_s"], 1.000, 1e-9);
  EXPECT_NEAR(j["worker_exit_s"], 0.050, 1e-9);
  EXPECT_NEAR(j["finish_s"], 0.050, 1e-9);
  ASSERT_EQ(j["per_case"].size(), 2u);
  EXPECT_EQ(j["per_case"][1]["index"], 1);
  EXPECT_NEAR(j["per_case"][1]["time_s"], 0.0, 1e-9);
}

TEST(RunPhases, EventsFromTheWorkerFillTheCases) {
  PhaseClock c;
  c.on_begin(4);
  c.on_phase(4, "validate_baselines");
  EXPECT_FALSE(c.cases.back().timed);
  c.on_phase(4, "time");
  EXPECT_TRUE(c.cases.back().timed);
  c.on_result(4);
  c.on_result(7);   // not the case running: ignored
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].index, 4);
  EXPECT_EQ(c.last_result, c.cases[0].result);
}

TEST(RunPhases, NoDeviceNoCasesOnlyTheHostPhases) {
  PhaseClock c;
  c.prepared = c.built = c.worker_done = c.start;
  const nlohmann::json j = c.to_json({}, c.start);
  EXPECT_TRUE(j.contains("prepare_s"));
  EXPECT_FALSE(j.contains("worker_start_s"));
  EXPECT_FALSE(j.contains("cases_s"));
}

}  // namespace
}  // namespace ako::pipeline
