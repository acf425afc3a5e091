#pragma once
// Profiling one kernel launch with Nsight Compute for `ako iterate --ncu`: the command line
// (clocks left alone, the five sections that explain a memory-bound kernel, exactly one launch
// of exactly one kernel), running it, and reading the report back as CSV.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "profile/ncu_summary.hpp"

namespace ako::profile {

struct NcuRequest {
  std::filesystem::path ncu;        // the ncu executable
  std::filesystem::path report;     // the .ncu-rep to write
  std::filesystem::path log_file;   // ncu's own messages and the profiled program's stderr
  std::string kernel;               // the kernel's mangled name (exact match), or "regex:<expr>" on the function name
  int launch_skip = 1;              // matching launches to let run first (the validation launch)
  std::vector<std::string> app;     // the program to profile and its arguments
};

// ncu --clock-control none --target-processes all --section ... -k ... --launch-skip N
// --launch-count 1 -f -o REPORT APP...
std::vector<std::string> ncu_profile_argv(const NcuRequest& request);

// ncu --import REPORT --csv --page raw (the table on stdout).
std::vector<std::string> ncu_import_argv(const std::filesystem::path& ncu, const std::filesystem::path& report);

// $AKO_NCU, else ncu on PATH, else /usr/local/cuda/bin/ncu. nullopt when none is executable;
// `looked` then lists where it looked.
std::optional<std::filesystem::path> find_ncu(std::string& looked);

struct NcuOutcome {
  bool ok = false;
  std::string error;                // why not ok, in words, with the log file to read
  NcuSummary summary;
  std::filesystem::path csv;        // the raw CSV, kept next to the report
  std::string command;              // the profile command line, as a shell would show it
};

// Runs the profile and the import; never throws for ncu's own failures (they are the outcome).
NcuOutcome run_ncu(const NcuRequest& request, double timeout_s);

// argv joined for display, quoting words with spaces or shell characters.
std::string shell_words(const std::vector<std::string>& argv);

}  // namespace ako::profile
