#include "iterate/assess.hpp"

namespace ako::iterate {

Assessment assess(const RunResult& now, int iter, const std::string& title, const std::string& hypothesis,
                  const History& h) {
  Assessment a;
  const bool is_baseline = h.summary == nullptr;
  a.status = classify(now, is_baseline ? nullptr : h.best);
  const bool measured = (a.status != Status::failed && a.status != Status::incorrect) && now.summary.runtime_us > 0;
  if (measured) a.runtime_us = now.summary.runtime_us;
  if (measured && is_baseline) a.speedup_vs_baseline = 1.0;
  if (measured && !is_baseline && h.baseline) {
    const RunComparison c = compare_runs(now, *h.baseline);
    if (c.common_cases > 0) a.speedup_vs_baseline = c.speedup();
  }
  if (measured && !is_baseline && h.best) {
    const RunComparison c = compare_runs(now, *h.best);
    if (c.common_cases > 0) a.gain_vs_best_pct = (c.speedup() - 1.0) * 100.0;
  }
  a.best_after = is_baseline ? iter : (a.status == Status::improved ? iter : h.summary->best);

  a.record.iter = iter;
  a.record.title = title;
  a.record.status = status_name(a.status);
  a.record.speedup_vs_baseline = a.speedup_vs_baseline;
  a.record.runtime_us = a.runtime_us;
  a.record.gain_vs_best_pct = a.gain_vs_best_pct;
  a.record.hypothesis = hypothesis;

  std::vector<IterationRecord> all = is_baseline ? std::vector<IterationRecord>{} : h.summary->iterations;
  all.push_back(a.record);
  a.stall = check_stall(all);
  return a;
}

}  // namespace ako::iterate
