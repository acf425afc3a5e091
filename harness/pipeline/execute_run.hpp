#pragma once
// A run from a task to verdicts, without any output on stdout: workspace, spec, cases and
// config, the build and the static checks, the worker job, the worker, the verdict rules, and
// compute-sanitizer on the failures when asked. `ako run` prints it, `ako gate` compares it
// with a baseline, `ako iterate` records it; `ako compile` stops after the build.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/client/gpu_probe.hpp"
#include "jit/compiler.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/run_plan.hpp"
#include "result/run_result.hpp"
#include "task/cases.hpp"
#include "task/spec.hpp"

namespace ako::pipeline {

struct RunOptions {
  std::string task;
  std::filesystem::path root;            // empty: search from the current directory
  std::string arch;                      // empty: the GPU's, else sm_90a
  // Whose config (solution/<task>/configs/) supplies the params: empty picks the GPU's, or
  // default.json without one; "default" is default.json. device_source says why (ConfigUsed).
  std::string device;
  std::string device_source = "--device";
  bool hot = false;
  std::string l2_flush = "memset";       // cold samples: "memset" or "read" (exec::TimingOptions::l2_flush)
  std::vector<std::string> shapes;       // empty: all
  std::vector<std::string> dtypes;       // empty: all of the task's
  std::string where;                     // empty: every case (task::CaseFilter::where)
  std::vector<std::string> params;       // NAME=VALUE overrides of the solution's parameters
  std::filesystem::path solution;        // replaces the task's solution file
  std::optional<uint64_t> seed;          // default: drawn at random, printed and recorded
  int trials = 0;                        // 0: the task's
  double case_timeout_s = 60;
  double max_time_s = 0.25;              // timing budget per kernel and case
  double target_ci_rel = 0.005;          // stop sampling once the IQM's 95% CI half-width / IQM is under this
  bool no_time = false;
  bool size_copy = false;                // also time a copy of each case's bytes (exec::CaseJob::time_size_copy)
  bool no_cupti = false;
  bool remeasure_bandwidth = false;
  bool no_checks = false;                // skip the reference-vs-CPU checks
  int jobs = 0;
  bool no_cache = false;
  std::filesystem::path cache_dir;
  double compile_timeout_s = jit::kDefaultCompileTimeoutS;          // per NVRTC program; 0: none
  unsigned long long compile_memory = jit::kDefaultCompileMemoryBytes;  // per NVRTC program; 0: none
  bool sanitize = false;                 // re-run failing cases under compute-sanitizer
};

// How far a run got: compile errors stop it before the GPU; without a GPU it stops after
// compiling (the builds and their resources are in the result); a candidate the static checks
// refuse stops it before the GPU too, with failed verdicts (exit 1); otherwise the worker ran.
enum class RunStage { compile_failed, no_gpu, refused, ran };

struct RunOutcome {
  RunResult result;
  RunStage stage = RunStage::ran;
  std::vector<std::string> compile_errors;  // compile_failed: with file and line
  std::string no_gpu_reason;                // no_gpu: the probe's words
  std::string fatal;                        // ran: the worker could not run (some cases lack verdicts)
  std::string arch;                         // what the kernels were compiled for
  uint64_t seed = 0;
  int trials = 0;
  std::vector<std::string> config_notes;    // shapes the tuning never saw: which class serves them (task/config.hpp)
  std::vector<std::string> baseline_notes;  // a baseline not installed or not compiled, once per baseline
  std::vector<std::string> cache_notes;     // the kernel cache could not be written, or an entry was damaged
  // result.config says which per-device config file was used (and any fallback).
};

// Throws ako::Error on spec and usage errors. Where an NVIDIA driver's device node exists, the
// worker is started first (exec::prestart_worker) and brings up its driver and context while
// this process loads the task and compiles; the GPU's name and arch come from the worker's
// early report (exec/protocol/device_report.hpp), else from this process's own probe. A run
// that stops before the GPU kills it unused.
// result.phases says where the wall time went.
RunOutcome execute_run(const RunOptions& opt, ProgressSink& progress);

// Everything both run and compile do before the GPU: workspace, spec, cases, arch.
struct PreparedRun {
  std::filesystem::path root;
  task::TaskSpec spec;
  std::vector<task::Case> cases;
  std::string arch;
  std::string arch_source;  // "--arch", "device", "default"
  exec::GpuProbe gpu;
  double gpu_probe_s = 0;   // the wait for the GPU's name and arch, for RunResult::phases
  std::string gpu_probe_source;   // "worker" (its early report) or "ako" (cuInit in this process)
  ConfigUsed config;        // which per-device config file supplies the params
  jit::CompileOptions compile;
};

// `probe` answers which GPU there is (exec::probe_gpu when not given).
PreparedRun prepare_run(const RunOptions& opt, bool with_checks,
                        const std::function<exec::GpuProbe()>& probe = {});

// Every kernel the prepared cases need, compiled and the solution statically checked.
BuiltKernels build_prepared(const PreparedRun& p);

// Once per baseline: why it did not run anywhere it applies (not installed, not compiled).
std::vector<std::string> baseline_notes(const std::vector<CaseResult>& cases);

}  // namespace ako::pipeline
