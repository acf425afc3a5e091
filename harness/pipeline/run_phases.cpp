#include "pipeline/run_phases.hpp"

namespace ako::pipeline {

double seconds_between(PhaseClock::Clock::time_point a, PhaseClock::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void PhaseClock::on_device() { device = Clock::now(); }

void PhaseClock::on_begin(int index) {
  const auto now = Clock::now();
  if (cases.empty()) first_begin = now;
  cases.push_back({index, now, now, now, false});
}

void PhaseClock::on_phase(int index, const std::string& phase) {
  if (phase != "time" || cases.empty() || cases.back().index != index) return;
  cases.back().time = Clock::now();
  cases.back().timed = true;
}

void PhaseClock::on_result(int index) {
  if (cases.empty() || cases.back().index != index) return;
  const auto now = Clock::now();
  cases.back().result = now;
  last_result = now;
}

nlohmann::json PhaseClock::to_json(const std::map<std::string, double>& worker_setup_s, Clock::time_point end) const {
  using nlohmann::json;
  json j{{"prepare_s", seconds_between(start, prepared)}, {"compile_s", seconds_between(prepared, built)},
         {"finish_s", seconds_between(worker_done, end)}};
  if (device != Clock::time_point{}) {
    j["worker_start_s"] = seconds_between(worker_spawn, device);
    j["worker_setup_s"] = worker_setup_s;
  }
  if (!cases.empty()) {
    j["worker_to_first_case_s"] = seconds_between(device, first_begin);
    j["cases_s"] = seconds_between(first_begin, last_result);
    j["worker_exit_s"] = seconds_between(last_result, worker_done);
    double validate = 0, time = 0;
    json per_case = json::array();
    for (const CaseTimes& c : cases) {
      const Clock::time_point timed_from = c.timed ? c.time : c.result;
      const double v = seconds_between(c.begin, timed_from), t = seconds_between(timed_from, c.result);
      validate += v;
      time += t;
      per_case.push_back(json{{"index", c.index}, {"validate_s", v}, {"time_s", t}});
    }
    j["validate_s"] = validate;
    j["time_s"] = time;
    j["per_case"] = per_case;
  }
  return j;
}

}  // namespace ako::pipeline
