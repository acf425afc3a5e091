#pragma once
// Runs a WorkerJob in ako-worker processes under a watchdog (the parent side of
// exec/protocol/job.hpp). A candidate that hangs, crashes the worker or poisons its CUDA
// context costs one case, never the run: the case is marked failed with the fault, the
// worker is replaced, and the cases not yet done run in the new one (indices preserved).
//
//   worker start ---- first "begin" within max(case_timeout_s, startup_timeout_s)
//   each begin / phase / result (and device) restarts a case_timeout_s deadline; other
//   lines (non-JSON, unknown events) do not, so a chattering hung worker still times out.
//   timeout              -> SIGKILL the worker's process group; running case: failed, "timeout"
//   worker exits mid-case -> running case: failed, "worker_crash" (exit status or signal,
//                            last lines of the worker's stderr)
//   exit after results   -> (e.g. after a sticky fault) a new worker for the rest
//   "baseline_failed"    -> that baseline failed in the case's record; the case stays pending
//                           and runs again without it (exec/protocol/baseline_blame.hpp)
//   "fatal" event, or two workers in a row that finish no case -> stop; WorkerRun::fatal
//   cases never run      -> verdict skipped, with the reason
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/client/child_process.hpp"
#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::exec {

struct ClientOptions {
  std::filesystem::path worker_exe;       // ako-worker (or a test's stand-in)
  std::filesystem::path scratch_dir;      // job-N.json, worker-N.stderr.log, client.log; created
                                          // if missing; one folder per concurrent run
  double case_timeout_s = 60;             // silence while a case runs that counts as a hang
  double startup_timeout_s = 60;          // allowance before the first "begin": context
                                          // creation and the copy-bandwidth measurement
  double exit_grace_s = 5;                // after stdout closes, time to exit before SIGKILL
  std::vector<std::string> extra_env;     // "KEY=VALUE" added to the worker's environment
};

// Progress hooks, called on the calling thread as events arrive; any may be empty.
struct ClientCallbacks {
  std::function<void(const DeviceInfo&)> on_device;            // first device event only
  std::function<void(int index)> on_begin;
  std::function<void(int index, const std::string& phase)> on_phase;
  std::function<void(const CaseResult&)> on_result;            // every case, once, incl. failed/skipped
};

struct WorkerRun {
  std::optional<DeviceInfo> device;
  // One per job case, in job order. Fields from the job: index, kind, dims, bytes; fields
  // from the worker (see merge_worker_fields) or from the watchdog. Task-level fields (shape,
  // dtype, flags, params, config_class) and derived ones (speedup, gbps, ...) are the
  // caller's: copy the worker's part into its own records with merge_worker_fields.
  std::vector<CaseResult> results;
  std::string fatal;                       // why the run stopped early; empty otherwise
  int worker_starts = 0;
  std::map<std::string, double> worker_setup_s;   // the first worker's start-up steps (WorkerEvent::setup_s)
  std::vector<std::string> diagnostics;    // protocol noise and oddities, "worker N: ...";
                                           // also appended to scratch_dir/client.log
  std::vector<std::filesystem::path> stderr_logs;   // one per worker start
};

// A worker started before its job exists (`ako-worker --await JOB`): it starts the driver and
// its context while the caller still prepares and compiles, and waits for JOB to appear.
// run_worker hands it the job as its first worker; destroyed unused, it is killed and reaped.
struct PrestartedWorker {
  ChildProcess child;
  std::filesystem::path job_file, stderr_log;
};

// Starts the first worker of a run with `opt` (creates scratch_dir); nullopt when it cannot be
// started (run_worker then starts its own as usual).
std::optional<PrestartedWorker> prestart_worker(const ClientOptions& opt);

// Throws ako::Error only for unusable arguments (no worker_exe, duplicate case indices,
// scratch_dir not creatable); everything that happens to workers ends up in the WorkerRun.
// `prestarted` (prestart_worker with the same options) becomes the first worker.
WorkerRun run_worker(const WorkerJob& job, const ClientOptions& opt, const ClientCallbacks& cb = {},
                     std::optional<PrestartedWorker> prestarted = std::nullopt);

// Copies the fields the worker owns: verdict, reason, fault, error, trials, seed,
// reference_time, solution_time, input_sets.
void merge_worker_fields(CaseResult& into, const CaseResult& from_worker);

}  // namespace ako::exec
