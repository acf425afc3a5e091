#pragma once
// `ako tune --time T`: a wall-clock budget for the search. The tuner asks stop() before each
// new batch; batches already started finish and are recorded, so the run ends cleanly and a
// rerun of the same command resumes from the tuning database.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace ako::search {

// "300", "300s", "5m", "1.5h", "90s" -> seconds (> 0). Throws ako::Error naming the forms.
double parse_duration(const std::string& text);

// "4m05s", "52s", "1h02m": short human text for the progress line and the report.
std::string format_duration(double seconds);

class TimeBudget {
 public:
  // `clock` returns seconds on a monotonic clock (tests inject one); empty: steady_clock.
  TimeBudget(std::optional<double> budget_s, std::function<double()> clock = {});
  bool expired() const;
  double elapsed_s() const;
  std::optional<double> budget_s() const { return budget_s_; }

 private:
  std::optional<double> budget_s_;
  std::function<double()> clock_;
  double start_ = 0;
};

}  // namespace ako::search
