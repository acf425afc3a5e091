#pragma once
// The iteration history from trajectory/<task>/: per iteration its status and total, the AKO
// stall rule replayed in order (where it fired, where a real gain reset it), and the solution's
// IQM per iteration on the hottest cases.
#include <map>

#include "iterate/trajectory.hpp"
#include "report/report_data.hpp"

namespace ako::report {

inline constexpr int kHottestCases = 3;

// `results`: each iteration's result.json that could be read (an iteration without one keeps
// its summary numbers and has no per-case points). The hottest cases are the correct timed
// compare cases with the largest solution IQMs in the best iteration's result (else the
// newest result's): the cases where time goes, which `ako iterate --ncu` profiles.
History build_history(const iterate::TrajectorySummary& summary, const std::map<int, RunResult>& results,
                      int hottest = kHottestCases);

}  // namespace ako::report
