#pragma once
// Blame for a baseline (tasks/README.md, "Baselines"): a baseline is timed beside the solution
// and never judges it, so when a baseline faults, hangs or writes out of bounds, the case is run
// again without it and the baseline alone is `failed` with that fault:
//   the worker, on a baseline's fault: a "baseline_failed" event (the case index, the baseline's
//   failed record in result.baselines, no verdict for the case); then, when the context is still
//   usable (an out-of-bounds write, a launch refused), it runs the case again at once without
//   that baseline; after a sticky fault (trap, illegal address) or a hang it exits, and the
//   client runs the case in the next worker without it (exec/client/worker_client.hpp).
// Only what the worker can pin on the baseline is its own: each validation launch is
// synchronised alone, its guards checked right after it.
#include <optional>
#include <string>

#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::exec {

inline constexpr const char* kBaselineFailedEvent = "baseline_failed";

// "baseline NAME": the role of a baseline's launches (fault messages, the watchdog).
std::string baseline_role(const std::string& name);
// NAME for "baseline NAME"; nullopt for every other role ("reference", "solution", "oracle", "").
std::optional<std::string> baseline_of_role(const std::string& role);

// The record of a baseline blamed for `fault` ("trap", "out_of_bounds_write", ...): failed,
// reason "baseline at fault: <what>; the case ran again without it".
BaselineResult blamed_baseline(const std::string& name, const std::string& fault, const std::string& what);

// The "baseline_failed" event of case `index` carrying `b`, and its reading (nullopt: not such an
// event, or one without exactly one baseline).
WorkerEvent baseline_failed_event(int index, const BaselineResult& b);
std::optional<BaselineResult> baseline_of_event(const WorkerEvent& ev);

// `job` without the baseline `name`: how the case runs again.
CaseJob without_baseline(const CaseJob& job, const std::string& name);

}  // namespace ako::exec
