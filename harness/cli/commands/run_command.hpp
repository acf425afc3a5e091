#pragma once
// `ako run task NAME`: compile, validate over every shape, time, report.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/format/progress.hpp"
#include "cli/format/style.hpp"
#include "result/run_result.hpp"

namespace ako::cli {

struct RunOptions {
  std::string task;
  std::filesystem::path root;            // empty: search from the current directory
  std::string arch;                      // empty: the GPU's, else sm_90a
  // Whose config (solution/<task>/configs/) supplies the params: empty picks the GPU's, or
  // default.json without one; "default" is default.json. device_source says why (ConfigUsed).
  std::string device;
  std::string device_source = "--device";
  std::filesystem::path json_out;
  bool hot = false;
  std::string l2_flush = "memset";       // cold samples: "memset" or "read" (exec::TimingOptions::l2_flush)
  std::vector<std::string> shapes;       // empty: all
  std::vector<std::string> dtypes;       // empty: all of the task's
  std::vector<std::string> params;       // NAME=VALUE overrides of the solution's parameters
  std::filesystem::path solution;        // replaces the task's solution file
  std::optional<uint64_t> seed;          // default: drawn at random, printed and recorded
  int trials = 0;                        // 0: the task's
  double case_timeout_s = 60;
  double max_time_s = 0.25;              // timing budget per kernel and case
  double target_ci_rel = 0.005;          // stop sampling once the median's 95% CI half-width / median is under this
  bool no_time = false;
  bool no_cupti = false;
  bool remeasure_bandwidth = false;
  bool no_checks = false;                // skip the reference-vs-CPU checks
  int jobs = 0;
  bool no_cache = false;
  std::filesystem::path cache_dir;
  ColorMode color = ColorMode::automatic;
  std::optional<bool> progress;          // default: when stderr is a terminal
  bool show_builds = false;
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
  // result.config says which per-device config file was used (and any fallback).
};

// The run without any output on stdout (progress goes to `progress`): `ako run` prints it,
// `ako gate` compares it with a baseline. Throws ako::Error on spec and usage errors.
RunOutcome execute_run(const RunOptions& opt, Progress& progress);

// `ako run`'s exit status for an outcome (cli/exit_codes.hpp).
int run_exit_code(const RunOutcome& outcome);

// Returns the exit status (cli/exit_codes.hpp). Prints the table and summary to stdout,
// progress and errors to stderr.
int run_command(const RunOptions& opt);

// `ako compile task NAME`: compile every kernel the run would need and print the resource
// table; no GPU needed. Returns 0 or 2.
int compile_command(const RunOptions& opt);

}  // namespace ako::cli
