#pragma once
// Where a run's wall time went (RunResult::phases, harness/result/SCHEMA.md): the times of the
// run's events as execute_run sees them (prepared, built, worker spawned, device reported, each
// case's begin / time phase / result, worker reaped), turned into seconds per phase.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ako::pipeline {

struct PhaseClock {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), prepared, built, worker_spawn, device, first_begin, last_result, worker_done;
  struct CaseTimes {
    int index = 0;
    Clock::time_point begin, time, result;
    bool timed = false;
  };
  std::vector<CaseTimes> cases;

  // The worker's events, as they arrive (exec::ClientCallbacks).
  void on_device();
  void on_begin(int index);
  void on_phase(int index, const std::string& phase);
  void on_result(int index);

  // prepare_s, compile_s, finish_s; with a device: worker_start_s, worker_setup_s (the worker's
  // own steps); with cases: worker_to_first_case_s, cases_s, worker_exit_s, validate_s, time_s
  // and per_case. `end`: the run's end.
  nlohmann::json to_json(const std::map<std::string, double>& worker_setup_s, Clock::time_point end) const;
};

double seconds_between(PhaseClock::Clock::time_point a, PhaseClock::Clock::time_point b);

}  // namespace ako::pipeline
