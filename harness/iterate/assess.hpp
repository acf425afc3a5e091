#pragma once
// One iteration's run judged against the trajectory so far: its status, its gain over the
// best, the best after it, and whether the stall rule fires. Pure: recorded results in, values out.
#include <optional>
#include <string>

#include "iterate/stall.hpp"
#include "iterate/status.hpp"
#include "iterate/trajectory.hpp"
#include "result/run_result.hpp"

namespace ako::iterate {

struct History {
  const TrajectorySummary* summary = nullptr;  // null: this run is the baseline
  const RunResult* baseline = nullptr;         // iteration 0's result
  const RunResult* best = nullptr;             // the best iteration's result
};

struct Assessment {
  Status status = Status::failed;
  std::optional<double> speedup_vs_baseline;  // baseline total / this total over common cases
  std::optional<double> gain_vs_best_pct;     // (best total / this total - 1) * 100; null: failed/incorrect/baseline
  std::optional<double> runtime_us;           // the run's sum of solution IQMs; null when none
  int best_after = 0;                         // an improved iteration becomes the best
  IterationRecord record;                     // for summary.json (commit filled in later)
  StallCheck stall;                           // over the history plus this iteration
};

Assessment assess(const RunResult& now, int iter, const std::string& title, const std::string& hypothesis,
                  const History& history);

}  // namespace ako::iterate
