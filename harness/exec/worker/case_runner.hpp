#pragma once
// One case from "begin" to "result": allocate (input sets with guard bands), validate the
// solution, then each baseline (or, for a reference_check case, the reference against the
// task's fp64 oracle), time when correct (reference, solution and baselines interleaved,
// rotating the input sets, outputs poisoned and in-place buffers restored before every launch,
// launches audited by CUPTI), then check the guards and the contents outside writable views
// again and re-check the timed outputs against the reference. A per-launch watchdog bounds
// every launch of a kernel under test.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/protocol/job.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/cuda_session.hpp"
#include "exec/worker/event_writer.hpp"
#include "exec/worker/launch_watchdog.hpp"
#include "exec/worker/module_cache.hpp"
#include "exec/worker/validation.hpp"
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
  using Launches = std::vector<std::unique_ptr<BoundLaunch>>;   // one per input set
  // `timer` may be null when no case is timed.
  CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
             measure::Timer* timer, const RunnerSettings& settings, const EventWriter& events);

  // Emits "begin", the phases and "result"; never throws for a candidate's fault.
  CaseOutcome run(const CaseJob& job);

 private:
  CaseResult run_unguarded(const CaseJob& job, std::string& stage);
  // Input sets to allocate: 1 unless the case is timed cold (exec::timed_input_sets).
  int input_sets(const CaseJob& job, bool with_solution) const;
  // Each baseline against the reference on input set 0, with the solution's defences
  // (case_baselines.cpp); one result per job.baselines entry.
  std::vector<BaselineResult> validate_baselines(const CaseJob& job, const CaseBuffers& buffers,
                                                 const BoundLaunch& reference, const ValidationContext& ctx);
  // The reference (when job.time_reference), the solution and every correct baseline timed
  // interleaved (case_timing.cpp); fills their times, r.clock and baseline audit failures.
  void time_kernels(const CaseJob& job, const CaseBuffers& buffers, const Launches& references,
                    const Launches& solutions, CaseResult& r);
  // After timing: the solution's guards and outside-the-views contents in every set, its launch
  // audit, and its last timed output of every set against a fresh reference run; the first
  // failure decides r.
  void check_after_timing(const CaseJob& job, const CaseBuffers& buffers, const Launches& references,
                          const ValidationContext& ctx, CaseResult& r);
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
