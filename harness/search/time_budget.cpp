#include "search/time_budget.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::search {

double parse_duration(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = used ? text.substr(used) : "";
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (!used || scale == 0 || !(v > 0) || !std::isfinite(v))
    throw Error("--time " + text + ": expected a positive duration: seconds (300 or 300s), minutes (5m) or hours (1.5h)");
  return v * scale;
}

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

namespace {
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

TimeBudget::TimeBudget(std::optional<double> budget_s, std::function<double()> clock)
    : budget_s_(budget_s), clock_(clock ? std::move(clock) : steady_seconds), start_(clock_()) {}

double TimeBudget::elapsed_s() const { return clock_() - start_; }

bool TimeBudget::expired() const { return budget_s_ && elapsed_s() >= *budget_s_; }

}  // namespace ako::search
