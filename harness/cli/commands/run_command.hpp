#pragma once
// `ako run task NAME`: compile, validate over every shape, time, report.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/format/style.hpp"

namespace ako::cli {

struct RunOptions {
  std::string task;
  std::filesystem::path root;            // empty: search from the current directory
  std::string arch;                      // empty: the GPU's, else sm_90a
  std::filesystem::path json_out;
  bool hot = false;
  std::vector<std::string> shapes;       // empty: all
  std::vector<std::string> dtypes;       // empty: all of the task's
  std::vector<std::string> params;       // NAME=VALUE overrides of the solution's parameters
  std::filesystem::path solution;        // replaces the task's solution file
  std::optional<uint64_t> seed;          // default: drawn at random, printed and recorded
  int trials = 0;                        // 0: the task's
  double case_timeout_s = 60;
  double max_time_s = 0.25;              // timing budget per kernel and case
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
};

// Returns the exit status (cli/exit_codes.hpp). Prints the table and summary to stdout,
// progress and errors to stderr.
int run_command(const RunOptions& opt);

// `ako compile task NAME`: compile every kernel the run would need and print the resource
// table; no GPU needed. Returns 0 or 2.
int compile_command(const RunOptions& opt);

}  // namespace ako::cli
