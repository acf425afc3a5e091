#pragma once
// One case from "begin" to "result": allocate, validate over the trials, time when correct.
#include <string>

#include "exec/protocol/job.hpp"
#include "exec/worker/cuda_session.hpp"
#include "exec/worker/event_writer.hpp"
#include "exec/worker/module_cache.hpp"
#include "measure/gpu/timer.hpp"
#include "result/run_result.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

struct CaseOutcome {
  CaseResult result;
  bool sticky = false;   // a fault left the context unusable: the worker must exit
};

class CaseRunner {
 public:
  // `timer` may be null when no case is timed.
  CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
             measure::Timer* timer, const TimingOptions& timing, const EventWriter& events);

  // Emits "begin", the phases and "result"; never throws for a candidate's fault.
  CaseOutcome run(const CaseJob& job);

 private:
  CaseResult run_unguarded(const CaseJob& job, std::string& stage);

  const CudaSession& cuda_;
  ModuleCache& modules_;
  verify::SupportKernels& support_;
  measure::Timer* timer_;
  TimingOptions timing_;
  const EventWriter& events_;
};

}  // namespace ako::exec
