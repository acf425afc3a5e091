#pragma once
// The GPU side of `ako tune`: a search::Evaluator in two stages so that compiling hides
// behind measuring (the tuner runs prepare() of the next batch on a helper thread while
// measure() of the current one runs on its own thread):
//
//   prepare  expand each variant's cases, compile the reference and support kernels (cached
//            after the first batch) and every variant, one NVRTC program each, in forked
//            processes (NVRTC serialises threads of one process; cuda_tech.md §1), then put
//            each through the static checks `ako run` applies (check_compiled_module in run_plan.hpp): a variant
//            with a finding the task does not allow is refused there and never reaches the GPU
//   measure  one worker job for the whole batch: every (variant, case) validated against
//            the reference, then timed; the reference itself is timed once per case label
//            per run (search::ReferenceTimes), not once per variant; each case's verdict
//            goes through the rules `ako run` applies (settle_case in verdict.hpp), so a
//            time faster than the copy bandwidth allows is refused here too
//
// A variant that does not compile, is refused by the static checks, is wrong or crashes
// costs its own records only (verdict failed; the refusal's reason starts "static check: ", a
// compile killed at the compile limits "compile_timeout: " or "compile_out_of_memory: ").
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/run_plan.hpp"
#include "exec/client/worker_client.hpp"
#include "exec/protocol/job.hpp"
#include "pipeline/drift_sentinel.hpp"
#include "search/reference_times.hpp"
#include "search/tuner.hpp"
#include "task/spec.hpp"

namespace ako::pipeline {

struct GpuEvaluatorOptions {
  std::vector<DType> dtypes;             // empty: the task's
  int trials = 3;                        // validation input sets per case
  bool hot = false;
  double max_time_s = 0.01;              // timing budget per kernel and case
  double warmup_ms = 5;                  // warm-up wall time per case (its timed kernels together)
  double case_timeout_s = 60;
  uint64_t seed = 1;
  BuildOptions build;                    // build.allow: the task's solution.allow
  // --compile-only: prepare() as always (compile, static checks), then no worker: every variant
  // that passed gets verdict "compiled" (search::kCompiledVerdict), no time, never a winner.
  bool compile_only = false;
  // One lane of several (--gpus, MPI): the GPU this evaluator measures on, by UUID. Its worker
  // is pinned there (CUDA_VISIBLE_DEVICES=<uuid>) and every record is tagged with it; a worker
  // that gives up on the GPU (WorkerRun::fatal) throws search::LaneLost with the variants it
  // finished, so the other lanes take the rest. Empty pin: the worker sees what ako sees (one GPU).
  std::string gpu_uuid;                  // the records' tag (also set with one GPU)
  bool pin_to_gpu = false;               // set CUDA_VISIBLE_DEVICES=<gpu_uuid> for the worker
  bool lane = false;                     // one of several: a fatal worker run throws LaneLost
  // Several lanes in one process measure at once: each its own scratch folder (worker jobs and
  // logs), ako-tune-<pid>-<lane_index>; -1: the process's one, ako-tune-<pid>.
  int lane_index = -1;
  // Runs a batch's worker job. Empty: exec::run_worker with the ako-worker beside ako; the
  // CPU tests inject a fake to see what would have reached the GPU.
  std::function<exec::WorkerRun(const exec::WorkerJob&, const exec::ClientOptions&, const exec::ClientCallbacks&)>
      run_worker;
  // Waits this many seconds before measuring a slow window's cases again (drift_sentinel.hpp).
  // Empty: sleeps; the CPU tests count instead.
  std::function<void(double seconds)> pause;
};

class GpuEvaluator : public search::Evaluator {
 public:
  GpuEvaluator(const task::TaskSpec& spec, GpuEvaluatorOptions opt);

  std::vector<search::DbRecord> evaluate(const std::vector<search::EvalRequest>& batch) override;
  std::unique_ptr<search::PreparedBatch> prepare(std::vector<search::EvalRequest> batch) override;
  std::vector<search::DbRecord> measure(search::PreparedBatch& batch) override;
  bool concurrent() const override { return true; }

  // Variants: compiled (helper thread), then on the tuner's thread: validated (ran on the
  // GPU), correct on every case, timed on every case.
  std::atomic<size_t> compiled{0}, compile_errors{0};
  std::atomic<size_t> refused_static{0};  // compiled, then refused by the static checks
  std::atomic<size_t> validated{0}, correct{0}, timed{0}, cases_run{0};
  // Variants whose compile had not started when the stop set by set_compile_stop held: nothing
  // is recorded for them, so a resumed tune asks them again.
  std::atomic<size_t> not_started{0};
  // Slow windows the drift sentinels caught (drift_sentinel.hpp), and the cases measured again.
  std::atomic<size_t> drift_windows{0}, remeasured{0};
  // One per window: what drifted, when, and what was measured again.
  std::vector<std::string> drift_notes() const;
  // What every sentinel and probe read (the tune's --json summary).
  SentinelTally sentinel_tally() const;
  // The label of the case that probes a class's first batch (empty before the first batch).
  std::string probe_label() const { return probe_ ? probe_->label : std::string(); }
  // Checked before each solution variant's compile starts (`ako tune --time`); the reference
  // and support kernels are always built.
  void set_compile_stop(std::function<bool()> stop) { compile_stop_ = std::move(stop); }
  std::optional<DeviceInfo> device;
  search::ReferenceTimes references;
  // Per case event inside a batch (tuner's thread): "validating" or "timing".
  std::function<void(const std::string& label, const std::string& what)> on_case;
  // What the compiles said about the kernel cache (unwritable, damaged entries), each once.
  std::vector<std::string> cache_notes() const;

 private:
  // One worker run of `job` on this lane's GPU.
  exec::WorkerRun run_worker_job(const exec::WorkerJob& job);
  // A run's results into the batch (`to_batch`: the job's case -> the batch job's; kProbeCase for
  // a probe), returning the sentinels' readings.
  using TakeResults = std::function<std::vector<SentinelReading>(
      const exec::WorkerRun& run, const exec::WorkerJob& job, const std::vector<size_t>& to_batch,
      const std::vector<size_t>& sentinels)>;
  // After a batch's run (`current`, its readings): while a sentinel read more than the tolerance
  // above its recording, the cases around it again (drift_sentinel.hpp), each try with sentinels
  // of its own, after the pauses, at most kMaxRemeasures tries; `claims` (by batch job case): the
  // case timed its label's reference first. `lost` is set when the worker gives up meanwhile.
  void remeasure_slow_windows(exec::WorkerJob current, std::vector<size_t> to_batch,
                              std::vector<SentinelReading> readings, const std::vector<bool>& claims,
                              const TakeResults& take, std::string& lost);
  void add_cache_notes(const std::vector<std::string>& notes);
  void add_drift_note(const std::string& note);
  mutable std::mutex notes_mutex_;        // prepare() runs on the helper thread
  std::vector<std::string> cache_notes_;
  std::vector<std::string> drift_notes_;
  SentinelTally sentinel_tally_;
  const task::TaskSpec& spec_;
  GpuEvaluatorOptions opt_;
  std::function<bool()> compile_stop_;
  // The drift probe of a segment with no recorded label (a class's first batch;
  // drift_sentinel.hpp): of the cases measured so far, one whose label has the fastest recorded
  // reference, as a delay added per launch shows most there. Its cubin is in the kernel cache; a
  // probe that reads nothing (pruned, failed) is replaced by the next batch's fastest.
  std::optional<exec::CaseJob> probe_;
};

}  // namespace ako::pipeline
