#pragma once
// The AKO stall rule: three consecutive iterations that gain less than 3% over the best so far
// (failed and incorrect ones gain nothing) mean the direction is spent: profile again, re-read
// the log, change direction.
#include <string>
#include <vector>

#include "iterate/trajectory.hpp"

namespace ako::iterate {

inline constexpr double kStallGainPct = 3.0;
inline constexpr int kStallRun = 3;

struct StallCheck {
  bool stalled = false;
  std::vector<IterationRecord> last;  // the iterations that make the run, oldest first
};

// Looks at the newest iterations (the baseline never counts).
StallCheck check_stall(const std::vector<IterationRecord>& iterations);

// The warning, with the last three hypotheses, for stderr.
std::string stall_warning(const StallCheck& check);

}  // namespace ako::iterate
