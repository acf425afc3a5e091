#pragma once
// The options of `ako iterate` and `ako best`, wired into the CLI11 app (kept out of main.cpp).
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/commands/iterate_command.hpp"

namespace ako::cli {

class IterateCli {
 public:
  explicit IterateCli(CLI::App& app);
  // The exit status when `iterate` or `best` was the subcommand given, else nullopt.
  std::optional<int> dispatch();
  // Whether the command given runs the task (and so makes scratch folders): `iterate`.
  bool makes_scratch() const { return iterate_cmd_ && iterate_cmd_->parsed(); }

 private:
  IterateOptions iterate_, best_;
  bool iterate_progress_off_ = false, best_progress_off_ = false;
  CLI::App* iterate_cmd_ = nullptr;
  CLI::App* best_cmd_ = nullptr;
};

}  // namespace ako::cli
