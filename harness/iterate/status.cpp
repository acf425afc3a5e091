#include "iterate/status.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "gate/case_key.hpp"
#include "measure/stats/stats.hpp"

namespace ako::iterate {

namespace {

// Compare cases with a correct, timed solution, by case key.
std::map<std::string, const TimingStats*> timed_cases(const RunResult& r) {
  std::map<std::string, const TimingStats*> out;
  for (const auto& c : r.cases)
    if (c.kind == "compare" && c.verdict == Verdict::correct && c.solution_time && c.solution_time->samples > 0)
      out[gate::case_key(c)] = &*c.solution_time;
  return out;
}

bool has_failure(const RunResult& r) {
  if (!r.summary.compiled || !r.error.empty()) return true;
  int compare_cases = 0;
  for (const auto& c : r.cases) {
    if (c.verdict == Verdict::failed || c.verdict == Verdict::skipped) return true;
    compare_cases += c.kind == "compare";
  }
  return compare_cases == 0;
}

bool has_incorrect(const RunResult& r) {
  return std::any_of(r.cases.begin(), r.cases.end(), [](const CaseResult& c) { return c.verdict == Verdict::incorrect; });
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::baseline: return "baseline";
    case Status::improved: return "improved";
    case Status::no_change: return "no-change";
    case Status::regression: return "regression";
    case Status::incorrect: return "incorrect";
    case Status::failed: return "failed";
  }
  return "?";
}

std::optional<Status> parse_status(const std::string& s) {
  for (Status v : {Status::baseline, Status::improved, Status::no_change, Status::regression, Status::incorrect,
                   Status::failed})
    if (s == status_name(v)) return v;
  return std::nullopt;
}

bool RunComparison::within_noise() const { return std::abs(now_us - then_us) <= noise_us; }

namespace {
// A timing with its median and the median's CI as the centre (idempotent on a result read from
// before the IQM, whose centre already is its median).
TimingStats on_median(const TimingStats& t) {
  TimingStats m = t;
  m.iqm_us = t.median_us;
  m.ci_rel = t.median_ci_rel;
  return m;
}
}  // namespace

RunComparison compare_runs(const RunResult& now, const RunResult& then, double floor_rel) {
  RunComparison c;
  const auto a = timed_cases(now), b = timed_cases(then);
  for (const auto& [key, now_ptr] : a) {
    const auto it = b.find(key);
    if (it == b.end()) continue;
    TimingStats t_now = *now_ptr, t_then = *it->second;
    // A run timed before the IQM has medians only: both sides are compared on medians.
    if (t_now.centre_is_median || t_then.centre_is_median) {
      t_now = on_median(t_now);
      t_then = on_median(t_then);
      ++c.on_medians;
    }
    ++c.common_cases;
    c.now_us += t_now.iqm_us;
    c.then_us += t_then.iqm_us;
    c.noise_us += std::max(t_now.ci_rel, floor_rel) * t_now.iqm_us + std::max(t_then.ci_rel, floor_rel) * t_then.iqm_us;
    if (measure::within_noise(t_now, t_then, floor_rel)) ++c.same;
    else if (t_now.iqm_us < t_then.iqm_us) ++c.faster;
    else ++c.slower;
  }
  return c;
}

Status classify(const RunResult& now, const RunResult* best) {
  if (has_failure(now)) return Status::failed;
  if (has_incorrect(now)) return Status::incorrect;
  if (!best) return Status::baseline;
  const RunComparison c = compare_runs(now, *best);
  if (c.common_cases == 0 || c.within_noise()) return Status::no_change;
  return c.now_us < c.then_us ? Status::improved : Status::regression;
}

std::string correctness_word(const RunResult& r) {
  if (nothing_measured(r)) return "skipped";  // no verdict at all is not a failure
  if (has_failure(r)) return "failed";
  return has_incorrect(r) ? "incorrect" : "correct";
}

}  // namespace ako::iterate
