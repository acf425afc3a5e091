#pragma once
// RunResult(s) + Baseline -> GateReport: the gate's whole decision, pure (no files, no GPU),
// so that the CPU tests drive it with synthetic results.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gate/baseline.hpp"
#include "gate/compare.hpp"
#include "gate/report.hpp"
#include "result/run_result.hpp"

namespace ako::gate {

// One task as the gate saw it this time.
struct TaskOutcome {
  std::string task;
  RunResult result;                     // builds always; cases with verdicts and timings when run on a GPU
  bool ran_on_gpu = false;
  std::string not_run_reason;           // !ran_on_gpu: why correctness and timing were not checked
  std::vector<std::string> build_errors;  // compile errors (then nothing else about the task is checked)
  std::set<std::string> defined_cases;  // every case label the task defines now, before --shapes/--dtypes
};

struct GateOptions {
  std::string baseline_file;            // for the report
  std::optional<double> threshold_pct;  // --threshold: replaces the baseline's default (a task's own wins)
  double min_change_us = kDefaultMinChangeUs;  // --min-change-us: a change this small is within the threshold
  std::set<std::string> workspace_tasks;  // every task under tasks/, selected or not
  std::string nvrtc_version;            // this ako's compiler: a different one explains resource changes
  std::string entry;                    // the baseline entry (device name) the outcomes are compared with
  // Set when the baseline file has no entry for this device (baseline is then null): said once
  // as a note and as the reason comparisons were skipped, e.g. "no baseline entry for NVIDIA
  // H200 (entries: NVIDIA H100 80GB HBM3); timings not compared; correctness gated".
  std::string no_entry_reason;
};

// `baseline`: the device's entry of the baseline file. Null: there is none yet (first
// --update-baseline, or no entry for this device: options.no_entry_reason); correctness and
// builds are still checked, comparisons are skipped and say so.
GateReport evaluate_gate(const std::vector<TaskOutcome>& outcomes, const Baseline* baseline,
                         const GateOptions& options);

// The threshold that applies to a task: its own, else --threshold, else the baseline's default.
double threshold_for(const std::string& task, const Baseline* baseline, const GateOptions& options);

}  // namespace ako::gate
