#include "cli/commands/gate_command.hpp"

#include <ctime>

#include <algorithm>
#include <set>

#include <cuda.h>  // CUDA_VERSION only: ako never links the driver
#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "cli/format/progress.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/utc_time.hpp"
#include "exec/client/gpu_probe.hpp"
#include "gate/evaluate.hpp"
#include "gate/render.hpp"
#include "gate/update.hpp"
#include "jit/compiler.hpp"
#include "pipeline/execute_run.hpp"
#include "pipeline/workspace.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task/spec.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> selected_tasks(const GateCommandOptions& opt, const std::vector<std::string>& all) {
  if (opt.tasks.empty()) return all;
  for (const auto& t : opt.tasks)
    if (std::find(all.begin(), all.end(), t) == all.end()) {
      std::string known;
      for (const auto& a : all) known += (known.empty() ? "" : ", ") + a;
      throw Error("--tasks " + t + ": no such task under tasks/ (known: " + known + ")");
    }
  return opt.tasks;
}

// Every case label the task defines now (what a missing baseline case is checked against).
std::set<std::string> defined_cases(const fs::path& root, const std::string& task) {
  const task::TaskSpec spec = task::load_task(root, task);
  std::set<std::string> out;
  for (const auto& c : task::expand_cases(spec, {}, {}, /*with_checks=*/true)) out.insert(c.label());
  return out;
}

// Where a run's device (and so its config) comes from: the GPU here, or a baseline entry
// checked without a GPU.
struct EntryPlan {
  std::string key;                      // the baseline entry (device name, or "default")
  const gate::Baseline* baseline;       // null: the file has no entry for it
  std::string device_source;            // ConfigUsed::device_source for the runs
  std::string arch;
  std::vector<gate::TaskOutcome> outcomes;
};

gate::TaskOutcome gate_task(const GateCommandOptions& opt, const fs::path& root, const std::string& task,
                            const EntryPlan& plan, Progress& progress) {
  pipeline::RunOptions ro;
  ro.task = task;
  ro.root = root;
  ro.arch = plan.arch;
  ro.device = plan.key;
  ro.device_source = plan.device_source;
  ro.shapes = opt.shapes;
  ro.dtypes = opt.dtypes;
  ro.max_time_s = opt.max_time_s;
  ro.case_timeout_s = opt.case_timeout_s;
  ro.jobs = opt.jobs;
  ro.no_cache = opt.no_cache;
  ro.cache_dir = opt.cache_dir;
  // Fixed on purpose: the gate always times cold L2 with CUPTI, as the baseline was.
  pipeline::RunOutcome run = pipeline::execute_run(ro, progress);
  progress.clear();
  for (const auto& n : run.cache_notes) fmt::print(stderr, "{}\n", n);  // an unwritable or damaged cache
  for (const auto& e : run.compile_errors) fmt::print(stderr, "{}\n", e);

  gate::TaskOutcome o;
  o.task = task;
  o.result = std::move(run.result);
  o.result.device.arch = o.result.device.arch.empty() ? run.arch : o.result.device.arch;
  o.ran_on_gpu = run.stage == pipeline::RunStage::ran;
  if (run.stage == pipeline::RunStage::no_gpu) o.not_run_reason = "no GPU (" + run.no_gpu_reason + ")";
  o.build_errors = run.compile_errors;
  if (run.stage == pipeline::RunStage::refused)  // the static checks refused the solution: a gate failure
    for (const auto& f : o.result.static_findings)
      if (!f.allowed) o.build_errors.push_back("static check refused: " + f.file + ": " + f.kernel + ": " + f.what);
  if (!run.fatal.empty()) fmt::print(stderr, "ako gate: {}: the worker could not run: {}\n", task, run.fatal);
  o.defined_cases = defined_cases(root, task);
  return o;
}

// A baseline goes into a folder the user made: a typo in the path never creates folders.
void require_baseline_folder(const fs::path& baseline) {
  const fs::path dir = fs::absolute(baseline).parent_path();
  if (!fs::is_directory(dir))
    throw Error("--baseline " + baseline.string() + ": the folder " + dir.string() +
                " does not exist (ako gate --update-baseline creates the file, not its folder; mkdir it first)");
}

std::string cuda_version() { return fmt::format("{}.{}", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10); }

// The arch to compile for: the GPU's when there is one (the run needs cubins it can load);
// otherwise --arch, else the entry's, else sm_90a.
std::string target_arch(const GateCommandOptions& opt, const gate::Baseline* entry, const exec::GpuProbe& gpu) {
  if (gpu.available) {
    const std::string device = exec::arch_for(gpu.major, gpu.minor);
    if (!opt.arch.empty() && opt.arch != device)
      throw Error("--arch " + opt.arch + ": this machine's GPU is " + device +
                  "; --arch only applies without a GPU (the run must load the cubins)");
    return device;
  }
  if (!opt.arch.empty()) return opt.arch;
  if (entry && !entry->arch.empty()) return entry->arch;
  return "sm_90a";
}

// With a GPU: its own entry only (timings compare on the device they were measured on).
// Without: --device's entry, else every entry (each with its arch and its device's config),
// else (no entries yet) "default", the default.json config.
std::vector<EntryPlan> plan_entries(const GateCommandOptions& opt, const gate::BaselineFile& file,
                                    const exec::GpuProbe& gpu) {
  std::vector<std::string> keys;
  std::string source = task::kDeviceFromBaseline;
  if (gpu.available) {
    if (!opt.device.empty() && file.key_of(opt.device) != file.key_of(gpu.name))
      throw Error("--device " + opt.device + ": this machine's GPU is " + gpu.name +
                  "; with a GPU the gate compares with that GPU's own entry (--device picks an entry without a GPU)");
    keys.push_back(gpu.name);  // timings are keyed by the name the GPU gives (see update_baseline)
    source = task::kDeviceFromGpu;
  } else if (!opt.device.empty()) {
    keys.push_back(file.key_of(opt.device));
    source = task::kDeviceFromOption;
  } else {
    for (const auto& [key, entry] : file.devices) keys.push_back(key);
    if (keys.empty()) keys.push_back(gate::kResourcesOnlyEntry);
  }
  std::vector<EntryPlan> plans;
  for (const auto& key : keys) {
    const gate::Baseline* entry = file.find(key);
    plans.push_back({key, entry, source, target_arch(opt, entry, gpu), {}});
  }
  return plans;
}

// "no baseline entry for NVIDIA H200 (entries: NVIDIA H100 80GB HBM3); timings not compared;
// correctness gated", or "" when the entry exists (or the file is new: nothing to say).
std::string no_entry_reason(const gate::BaselineFile& file, const EntryPlan& plan, bool on_gpu) {
  if (plan.baseline || file.devices.empty()) return "";
  return fmt::format("no baseline entry for {} (entries: {}); {}", plan.key, file.entry_names(),
                     on_gpu ? "timings not compared; correctness gated"
                            : "budgets not compared; its config compiled and statically checked");
}

// One report over every entry: each entry's checks carry its name; notes say which entry.
gate::GateReport evaluate_entries(const GateCommandOptions& opt, const gate::BaselineFile& file,
                                  const std::vector<EntryPlan>& plans, const std::vector<std::string>& all, bool on_gpu) {
  gate::GateReport report;
  for (const auto& plan : plans) {
    gate::GateOptions gopt;
    gopt.baseline_file = opt.baseline.string();
    gopt.threshold_pct = opt.threshold_pct;
    gopt.min_change_us = opt.min_change_us;
    gopt.workspace_tasks = {all.begin(), all.end()};
    gopt.nvrtc_version = jit::nvrtc_version_string();
    gopt.entry = plan.key;
    gopt.no_entry_reason = no_entry_reason(file, plan, on_gpu);
    gate::GateReport one = gate::evaluate_gate(plan.outcomes, plan.baseline, gopt);
    report.baseline_file = one.baseline_file;
    if (report.mode.empty()) report.mode = one.mode;
    for (auto& n : one.notes) {
      const std::string note = plans.size() > 1 && n.rfind("no baseline entry", 0) != 0 ? plan.key + ": " + n : n;
      if (std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end()) report.notes.push_back(note);
    }
    for (auto& c : one.coverage) report.coverage.push_back(std::move(c));
    for (auto& c : one.checks) report.checks.push_back(std::move(c));
  }
  if (file.read_schema == gate::kBaselineSchemaV1)
    report.notes.push_back(fmt::format("{} is {}: read as one entry ({}); --update-baseline rewrites it as {}",
                                       opt.baseline.string(), gate::kBaselineSchemaV1, file.entry_names(),
                                       gate::kBaselineSchema));
  if (!on_gpu) {
    std::string which;
    for (const auto& p : plans) which += (which.empty() ? "" : ", ") + p.key + " (" + p.arch + ")";
    report.mode += "; baseline entries checked: " + which;
  }
  return report;
}

// Writes the entries that ran, keeps every other entry as it was.
int update_baseline(const GateCommandOptions& opt, const gate::GateReport& report, gate::BaselineFile& file,
                    const std::vector<EntryPlan>& plans, bool on_gpu) {
  if (!report.passed()) {
    fmt::print("ako gate: refusing to update {}: {} check(s) failed (see above); it is unchanged. "
               "To accept a change on purpose, remove the affected task's entry (or the file) and update again.\n",
               opt.baseline.string(), report.count(gate::CheckStatus::fail));
    return kExitIncorrect;
  }
  std::string written;
  for (const auto& plan : plans) {
    gate::BaselineStamp stamp{std::string("ako ") + AKO_VERSION, utc_now(), plan.arch, cuda_version(),
                              jit::nvrtc_version_string()};
    gate::Baseline fresh = gate::updated_baseline(plan.baseline, plan.outcomes, stamp);
    // An entry made without a GPU under another spelling of this name gives way to the GPU's.
    const std::string old_key = file.key_of(plan.key);
    if (old_key != plan.key) file.devices.erase(old_key);
    file.devices[plan.key] = std::move(fresh);
    written += fmt::format("{}{} ({})", written.empty() ? "" : ", ", plan.key, plan.arch);
  }
  std::string kept;
  for (const auto& [key, entry] : file.devices)
    if (std::none_of(plans.begin(), plans.end(), [&](const EntryPlan& p) { return p.key == key; }))
      kept += (kept.empty() ? "" : ", ") + key;
  gate::save_baseline(opt.baseline, file);
  if (on_gpu)
    fmt::print("ako gate: {} updated: entry {}: verdicts, timings and resource budgets ({} task(s))", opt.baseline.string(),
               written, plans.front().outcomes.size());
  else
    fmt::print("ako gate: {} updated: resource budgets only, for entry {}; without a GPU the timings and verdicts "
               "were kept as they were",
               opt.baseline.string(), written);
  fmt::print("; other entries kept: {}\n", kept.empty() ? std::string("none") : kept);
  return kExitOk;
}

}  // namespace

int gate_command(const GateCommandOptions& opt) {
  const fs::path root = pipeline::find_workspace(opt.root);
  const std::vector<std::string> all = task::list_tasks(root);
  const std::vector<std::string> tasks = selected_tasks(opt, all);

  if (opt.update_baseline) require_baseline_folder(opt.baseline);
  gate::BaselineFile file;
  std::error_code ec;
  if (fs::exists(opt.baseline, ec))
    file = gate::load_baseline(opt.baseline);
  else if (!opt.update_baseline)
    throw Error("--baseline " + opt.baseline.string() +
                ": no such file (create it with `ako gate --update-baseline --baseline " + opt.baseline.string() +
                "`)");

  const exec::GpuProbe gpu = exec::probe_gpu();
  std::vector<EntryPlan> plans = plan_entries(opt, file, gpu);
  for (const auto& plan : plans) jit::check_arch(plan.arch);
  Progress progress(stderr, opt.progress.value_or(is_terminal(stderr)));
  for (auto& plan : plans)
    for (const auto& t : tasks) plan.outcomes.push_back(gate_task(opt, root, t, plan, progress));
  const gate::GateReport report = evaluate_entries(opt, file, plans, all, gpu.available);

  // The verdict line is the table's last; on a terminal it is coloured.
  const Style style = style_for(stdout, opt.color);
  const std::string table = gate::render_table(report), verdict = gate::verdict_line(report);
  fmt::print("{}{}", table.substr(0, table.size() - verdict.size()),
             (report.passed() ? style.green(verdict.substr(0, verdict.size() - 1))
                              : style.red(verdict.substr(0, verdict.size() - 1))) + "\n");
  if (!opt.summary_out.empty()) write_file_atomically(opt.summary_out, gate::render_markdown(report));
  if (!opt.json_out.empty()) write_file_atomically(opt.json_out, gate::report_json(report).dump(2) + "\n");

  if (report.build_failed()) return kExitUsage;
  if (opt.update_baseline) return update_baseline(opt, report, file, plans, gpu.available);
  return report.passed() ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
