#pragma once
// `ako validate --model M [--steps N] [--graph] [--json F]`: the model-level check of the ported
// kernels (issue 18). Runs the workspace's bench/validate package (harness/validate/
// validate_run.hpp), shows its progress, prints the step table and the family verdicts from
// its JSON (harness/validate/validate_table.hpp).
#include <optional>

#include <CLI/CLI.hpp>

#include "validate/validate_run.hpp"

namespace ako::cli {

// 0 every verdict passed; 1 a verdict failed (a family fell back or its win did not transfer,
// or an output beyond tolerance); 2 usage or environment error: unknown model, no python3,
// torch or GPU absent, the Python side crashed (its stderr's tail is shown).
int validate_command(const validate::ValidateRequest& req);

class ValidateCli {
 public:
  explicit ValidateCli(CLI::App& app);
  std::optional<int> dispatch();

 private:
  validate::ValidateRequest req_;
  std::filesystem::path root_;
  CLI::App* cmd_ = nullptr;
};

}  // namespace ako::cli
