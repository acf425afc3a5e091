#pragma once
// `ako run task NAME`: compile, validate over every shape, time, report. The run itself is
// pipeline::execute_run (pipeline/execute_run.hpp); this prints it.
#include <filesystem>
#include <optional>

#include "cli/format/style.hpp"
#include "pipeline/execute_run.hpp"

namespace ako::cli {

// The run's options, and what only the command's output needs.
struct RunOptions : pipeline::RunOptions {
  std::filesystem::path json_out;
  ColorMode color = ColorMode::automatic;
  std::optional<bool> progress;          // default: when stderr is a terminal
  bool show_builds = false;
};

// `ako run`'s exit status for an outcome (cli/exit_codes.hpp).
int run_exit_code(const pipeline::RunOutcome& outcome);

// Returns the exit status (cli/exit_codes.hpp). Prints the table and summary to stdout,
// progress and errors to stderr.
int run_command(const RunOptions& opt);

// `ako compile task NAME`: compile every kernel the run would need and print the resource
// table; no GPU needed. Returns 0 or 2.
int compile_command(const RunOptions& opt);

}  // namespace ako::cli
