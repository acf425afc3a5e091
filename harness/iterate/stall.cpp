#include "iterate/stall.hpp"

#include <fmt/format.h>

namespace ako::iterate {

StallCheck check_stall(const std::vector<IterationRecord>& iterations) {
  StallCheck c;
  for (auto it = iterations.rbegin(); it != iterations.rend() && static_cast<int>(c.last.size()) < kStallRun; ++it) {
    if (it->status == "baseline") break;
    const bool gained = it->gain_vs_best_pct && *it->gain_vs_best_pct >= kStallGainPct;
    if (gained) break;
    c.last.insert(c.last.begin(), *it);
  }
  c.stalled = static_cast<int>(c.last.size()) == kStallRun;
  if (!c.stalled) c.last.clear();
  return c;
}

std::string stall_warning(const StallCheck& c) {
  if (!c.stalled) return "";
  std::string s = fmt::format(
      "STALL: {} consecutive iterations gained less than {:.0f}% over the best; profile (ncu runs now), re-read "
      "ITERATIONS.md and change direction. The last {} hypotheses:\n",
      kStallRun, kStallGainPct, kStallRun);
  for (const auto& r : c.last)
    s += fmt::format("  iter {} ({}, {}): {}\n", r.iter, r.status,
                     r.gain_vs_best_pct ? fmt::format("{:+.1f}% vs best", *r.gain_vs_best_pct) : "no timing",
                     r.hypothesis);
  return s;
}

}  // namespace ako::iterate
