#pragma once
// One case from "begin" to "result": allocate (input sets with guard bands), validate, time
// when correct (rotating the input sets, outputs poisoned before every launch, the solution's
// launches audited by CUPTI), then check the guards again and re-check the timed outputs
// against the reference. A per-launch watchdog bounds every candidate launch.
#include <optional>
#include <string>

#include "exec/protocol/job.hpp"
#include "exec/worker/cuda_session.hpp"
#include "exec/worker/event_writer.hpp"
#include "exec/worker/launch_watchdog.hpp"
#include "exec/worker/module_cache.hpp"
#include "measure/gpu/timer.hpp"
#include "result/run_result.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

struct CaseOutcome {
  CaseResult result;
  bool sticky = false;   // a fault left the context unusable: the worker must exit
};

// What the runner needs to know of the job and the device beyond the case itself.
struct RunnerSettings {
  TimingOptions timing;
  LaunchLimit launch_limit;
  int max_input_sets = 8;
  uint64_t l2_bytes = 0;
};

class CaseRunner {
 public:
  // `timer` may be null when no case is timed.
  CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
             measure::Timer* timer, const RunnerSettings& settings, const EventWriter& events);

  // Emits "begin", the phases and "result"; never throws for a candidate's fault.
  CaseOutcome run(const CaseJob& job);

 private:
  CaseResult run_unguarded(const CaseJob& job, std::string& stage);
  // The watchdog fired: report the running case as timed out and end the process.
  [[noreturn]] void on_launch_timeout(const std::string& what, double limit_s);

  const CudaSession& cuda_;
  ModuleCache& modules_;
  verify::SupportKernels& support_;
  measure::Timer* timer_;
  RunnerSettings settings_;
  const EventWriter& events_;
  const CaseJob* current_ = nullptr;            // the case running (for the watchdog's report)
  std::optional<double> reference_s_;          // the current case's reference launch time
  LaunchWatchdog watchdog_;                    // last: its thread uses the members above
};

}  // namespace ako::exec
