#pragma once
// `ako gate --update-baseline`: the new baseline from a fresh run. The CLI calls this only
// after the gate passed (it refuses otherwise).
#include <string>
#include <vector>

#include "gate/baseline.hpp"
#include "gate/evaluate.hpp"

namespace ako::gate {

struct BaselineStamp {
  std::string written_by;     // "ako 0.1.0"
  std::string updated_at;     // ISO 8601 UTC
  std::string arch;           // what the kernels were compiled for
  std::string cuda_version;
  std::string nvrtc_version;
};

// With a GPU run: each task that ran is replaced whole (cases with verdicts and timings,
// kernel budgets) and the device recorded; tasks not selected are kept, unless their timings
// come from another device (then ako::Error: a baseline never mixes devices; run every task).
// Without a GPU: only the kernel budgets are replaced; cases, timings and device are kept as
// they were (they need a GPU to refresh). Per-task and default thresholds are always kept.
// Throws ako::Error when the budgets' arch would change while GPU timings are kept.
Baseline updated_baseline(const Baseline* old, const std::vector<TaskOutcome>& outcomes, const BaselineStamp& stamp);

}  // namespace ako::gate
