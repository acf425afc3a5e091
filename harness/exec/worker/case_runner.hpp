#pragma once
// One case from "begin" to "result": allocate (the precision check's fp64 copies, input sets
// with guard bands), validate the solution (against the reference, and on every trial against
// the task's fp64 oracle with the reference's error as the yardstick), then each baseline (or,
// for a reference_check case, the reference against the task's fp64 oracle), time when correct
// (reference, solution and baselines interleaved, rotating the input sets and both sides'
// copies of the written storages of each, outputs poisoned and in-place buffers restored in the copy about to be written before every launch,
// launches audited by CUPTI), re-check the solution's last timed outputs (the contents outside
// its writable views, then against a fresh reference run) as soon as it has taken its last
// sample, then check the guards of every copy again. A per-launch watchdog bounds every launch
// of a kernel under test.
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/protocol/job.hpp"
#include "exec/protocol/output_slots.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/cuda_session.hpp"
#include "exec/worker/event_writer.hpp"
#include "exec/worker/launch_watchdog.hpp"
#include "exec/worker/module_cache.hpp"
#include "exec/worker/validation.hpp"
#include "measure/gpu/timer.hpp"
#include "result/run_result.hpp"
#include "exec/worker/oracle_scratch.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

// The re-check of the solution's last timed outputs (case_timing.cpp).
struct TimedRecheck {
  bool done = false;
  std::optional<Finding> finding;   // it wrote outside its writable views (out_of_bounds_write)
  std::string reason;               // empty: every timed output matched the reference
  ErrorStats error;
};

struct CaseOutcome {
  CaseResult result;
  bool sticky = false;   // a fault left the context unusable: the worker must exit
  // A baseline faulted, hung or wrote out of bounds (exec/protocol/baseline_blame.hpp): its
  // record; the case has no verdict yet and runs again without it.
  std::optional<BaselineResult> blamed_baseline;
};

// Thrown where a baseline's own check pins damage on it (validate_baselines).
struct BaselineAtFault : std::runtime_error {
  explicit BaselineAtFault(BaselineResult b) : std::runtime_error(b.reason), baseline(std::move(b)) {}
  BaselineResult baseline;
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
  // One kernel bound to every slot: [input set][output copy] (copy c: side_of_copy(c)'s copies).
  using SlotLaunches = std::vector<std::array<std::unique_ptr<BoundLaunch>, 2>>;
  // `timer` may be null when no case is timed.
  CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
             measure::Timer* timer, const RunnerSettings& settings, const EventWriter& events);

  // Emits "begin", the phases and "result"; never throws for a candidate's fault. A baseline at
  // fault is reported ("baseline_failed") and the case runs again without it, here when the
  // context survived, else (sticky) in the next worker: the outcome then has no result to send.
  CaseOutcome run(const CaseJob& job);

 private:
  // One attempt at the case: "begin", the phases, and the result unless a baseline was blamed.
  CaseOutcome run_once(const CaseJob& job);
  CaseResult run_unguarded(const CaseJob& job, std::string& stage);
  // Input sets to allocate: 1 unless the case is timed cold (exec::timed_input_sets).
  int input_sets(const CaseJob& job, bool with_solution) const;
  // Each baseline against the reference on input set 0, with the solution's defences
  // (case_baselines.cpp); one result per job.baselines entry.
  std::vector<BaselineResult> validate_baselines(const CaseJob& job, const CaseBuffers& buffers,
                                                 const BoundLaunch& reference, const ValidationContext& ctx);
  // The reference (when job.time_reference), the solution and every correct baseline timed
  // interleaved (case_timing.cpp), each writing both sides' copies of every set in turn; fills
  // their times, r.clock and baseline audit failures. Returns the re-check of the solution's
  // last timed output of every set, made as soon as the solution took its last sample.
  TimedRecheck time_kernels(const CaseJob& job, const CaseBuffers& buffers, const ValidationContext& ctx,
                            CaseResult& r);
  // The solution's last timed output of every set (where the ledger says it is): its contents
  // outside its writable views, then against a fresh reference run into the set's other copy.
  TimedRecheck recheck_timed_outputs(const CaseJob& job, const CaseBuffers& buffers, const SlotLaunches& reference,
                                     OutputLedger& ledger, const ValidationContext& ctx);
  // After timing: the guards of every copy in every set, the re-check's outside-the-views
  // finding, the solution's launch audit, then the re-check's comparison; the first failure
  // decides r.
  void check_after_timing(const CaseBuffers& buffers, const ValidationContext& ctx, const TimedRecheck& recheck,
                          CaseResult& r);
  // The watchdog fired: report the running case as timed out (skipped when `role` is the
  // reference's in a compare case or the oracle's; a baseline's: that baseline failed, the case
  // left to the next worker) and end the process.
  [[noreturn]] void on_launch_timeout(const std::string& what, double limit_s, const std::string& role);

  const CudaSession& cuda_;
  ModuleCache& modules_;
  verify::SupportKernels& support_;
  measure::Timer* timer_;
  RunnerSettings settings_;
  const EventWriter& events_;
  const CaseJob* current_ = nullptr;            // the case running (for the watchdog's report)
  std::optional<double> reference_s_;          // the current case's reference launch time
  OracleScratch oracle_scratch_;               // the precision check's fp64 copies, kept across cases
  LaunchWatchdog watchdog_;                    // last: its thread uses the members above
};

}  // namespace ako::exec
