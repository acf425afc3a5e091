#pragma once
// The options of `ako tune`, wired into a CLI11 app: shared by ako and ako-mpi-tune, which
// takes the same command line.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands/tune_command.hpp"

namespace ako::cli {

struct TuneCli {
  TuneCommandOptions tune;
  std::vector<std::string> words;
  bool progress_on = false, progress_off = false;
  bool mpi = false;  // --mpi: main.cpp hands the command over to ako-mpi-tune before parsing
  CLI::App* cmd = nullptr;

  explicit TuneCli(CLI::App& app);
  // Fills tune.task and the progress choice from the parsed words and flags.
  TuneCommandOptions parsed();
  int dispatch() { return tune_command(parsed()); }
};

}  // namespace ako::cli
