#pragma once
// `ako gate`: the CI regression gate. Runs the tasks (on a GPU) or only compiles them (without
// one), compares with the committed baseline (harness/gate/), prints the report. The baseline
// holds one entry per device: a GPU is compared with its own entry (none: said, correctness
// still gated); without a GPU every entry's kernels are built for its arch with its device's
// config and checked against its budgets.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/format/style.hpp"
#include "gate/compare.hpp"

namespace ako::cli {

struct GateCommandOptions {
  std::filesystem::path root;            // empty: search from the current directory
  std::filesystem::path baseline;        // bench/baseline.json
  std::vector<std::string> tasks;        // empty: every task under tasks/
  std::vector<std::string> shapes, dtypes;  // narrow the cases (baseline cases outside are skipped, said so)
  std::optional<double> threshold_pct;   // replaces the baseline's default threshold
  double min_change_us = gate::kDefaultMinChangeUs;  // a change this small is within the threshold
  std::filesystem::path summary_out;     // markdown for a CI summary
  std::filesystem::path json_out;        // the report as JSON (schema ako.gate/1)
  bool update_baseline = false;
  std::string arch;                      // no GPU: compile for this instead of the entries' archs
  std::string device;                    // no GPU: check only this baseline entry (and its device's config)
  double max_time_s = 0.25;
  double case_timeout_s = 60;
  int jobs = 0;
  bool no_cache = false;
  std::filesystem::path cache_dir;
  std::optional<bool> progress;
  ColorMode color = ColorMode::automatic;  // colours the GATE: line only
};

// 0 everything that ran passed; 1 a gate failure (or --update-baseline refused); 2 usage, spec,
// baseline or build error.
int gate_command(const GateCommandOptions& opt);

}  // namespace ako::cli
