#include "report/history.hpp"

#include <algorithm>

#include "gate/case_key.hpp"
#include "iterate/stall.hpp"

namespace ako::report {

namespace {

std::map<std::string, double> solution_iqms(const RunResult& r) {
  std::map<std::string, double> out;
  for (const auto& c : r.cases)
    if (c.kind == "compare" && c.verdict == Verdict::correct && c.solution_time && c.solution_time->iqm_us > 0)
      out[gate::case_key(c)] = c.solution_time->iqm_us;
  return out;
}

std::vector<std::string> hottest_labels(const RunResult& r, int n) {
  std::vector<std::pair<double, std::string>> by_time;
  for (const auto& [label, us] : solution_iqms(r)) by_time.emplace_back(us, label);
  std::sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> labels;
  for (const auto& [us, label] : by_time) {
    if (static_cast<int>(labels.size()) == n) break;
    labels.push_back(label);
  }
  return labels;
}

}  // namespace

History build_history(const iterate::TrajectorySummary& summary, const std::map<int, RunResult>& results, int hottest) {
  History h;
  h.baseline = summary.baseline;
  h.best = summary.best;
  std::vector<iterate::IterationRecord> so_far;
  for (const auto& it : summary.iterations) {
    so_far.push_back(it);
    HistoryPoint p;
    p.iter = it.iter;
    p.title = it.title;
    p.status = it.status;
    p.hypothesis = it.hypothesis;
    p.commit = it.commit.value_or("");
    p.total_us = it.runtime_us;
    p.speedup_vs_baseline = it.speedup_vs_baseline;
    p.gain_vs_best_pct = it.gain_vs_best_pct;
    p.profiled = it.profiled;
    // The rule as `ako iterate` applies it after this iteration (iterate/stall.hpp).
    const iterate::StallCheck check = iterate::check_stall(so_far);
    p.stall_fired = check.stalled;
    const bool gained = it.gain_vs_best_pct && *it.gain_vs_best_pct >= iterate::kStallGainPct;
    const int previous_run = h.points.empty() ? 0 : h.points.back().stall_run;
    p.stall_run = it.status == "baseline" || gained ? 0 : previous_run + 1;
    p.reset = gained && previous_run > 0;
    h.points.push_back(std::move(p));
  }

  const RunResult* pick = nullptr;
  if (const auto it = results.find(summary.best); it != results.end()) pick = &it->second;
  else if (!results.empty()) pick = &results.rbegin()->second;
  if (!pick) return h;
  for (const auto& label : hottest_labels(*pick, hottest)) {
    HottestCase hc;
    hc.label = label;
    for (const auto& p : h.points) {
      const auto r = results.find(p.iter);
      std::optional<double> v;
      if (r != results.end()) {
        const auto m = solution_iqms(r->second);
        if (const auto f = m.find(label); f != m.end()) v = f->second;
      }
      hc.iqm_us.push_back(v);
    }
    h.hottest.push_back(std::move(hc));
  }
  return h;
}

}  // namespace ako::report
