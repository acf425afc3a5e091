#include "cli/commands/gate_command.hpp"

#include <ctime>

#include <algorithm>
#include <set>

#include <cuda.h>  // CUDA_VERSION only: ako never links the driver
#include <fmt/format.h>

#include "cli/commands/run_command.hpp"
#include "cli/commands/workspace.hpp"
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
#include "task/cases.hpp"
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

gate::TaskOutcome gate_task(const GateCommandOptions& opt, const fs::path& root, const std::string& task,
                            const std::string& arch, Progress& progress) {
  RunOptions ro;
  ro.task = task;
  ro.root = root;
  ro.arch = arch;
  ro.shapes = opt.shapes;
  ro.dtypes = opt.dtypes;
  ro.max_time_s = opt.max_time_s;
  ro.case_timeout_s = opt.case_timeout_s;
  ro.jobs = opt.jobs;
  ro.no_cache = opt.no_cache;
  ro.cache_dir = opt.cache_dir;
  // Fixed on purpose: the gate always times cold L2 with CUPTI, as the baseline was.
  RunOutcome run = execute_run(ro, progress);
  progress.clear();
  for (const auto& e : run.compile_errors) fmt::print(stderr, "{}\n", e);

  gate::TaskOutcome o;
  o.task = task;
  o.result = std::move(run.result);
  o.result.device.arch = o.result.device.arch.empty() ? run.arch : o.result.device.arch;
  o.ran_on_gpu = run.stage == RunStage::ran;
  if (run.stage == RunStage::no_gpu) o.not_run_reason = "no GPU (" + run.no_gpu_reason + ")";
  o.build_errors = run.compile_errors;
  if (run.stage == RunStage::refused)  // the static checks refused the solution: a gate failure
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
// otherwise --arch, else the baseline's, else sm_90a.
std::string target_arch(const GateCommandOptions& opt, const gate::Baseline* baseline, const exec::GpuProbe& gpu) {
  if (gpu.available) {
    const std::string device = exec::arch_for(gpu.major, gpu.minor);
    if (!opt.arch.empty() && opt.arch != device)
      throw Error("--arch " + opt.arch + ": this machine's GPU is " + device +
                  "; --arch only applies without a GPU (the run must load the cubins)");
    return device;
  }
  if (!opt.arch.empty()) return opt.arch;
  if (baseline && !baseline->arch.empty()) return baseline->arch;
  return "sm_90a";
}

int update_baseline(const GateCommandOptions& opt, const gate::GateReport& report, const gate::Baseline* old,
                    const std::vector<gate::TaskOutcome>& outcomes, const std::string& arch) {
  if (!report.passed()) {
    fmt::print("ako gate: refusing to update {}: {} check(s) failed (see above); it is unchanged. "
               "To accept a change on purpose, remove the affected task's entry (or the file) and update again.\n",
               opt.baseline.string(), report.count(gate::CheckStatus::fail));
    return kExitIncorrect;
  }
  gate::BaselineStamp stamp{std::string("ako ") + AKO_VERSION, utc_now(), arch, cuda_version(),
                            jit::nvrtc_version_string()};
  const gate::Baseline fresh = gate::updated_baseline(old, outcomes, stamp);
  gate::save_baseline(opt.baseline, fresh);
  const bool on_gpu = !outcomes.empty() && outcomes.front().ran_on_gpu;
  if (on_gpu)
    fmt::print("ako gate: {} updated: verdicts, timings and resource budgets from {} ({} task(s))\n",
               opt.baseline.string(), fresh.device->name, outcomes.size());
  else
    fmt::print("ako gate: {} updated: resource budgets for {} only; without a GPU the timings and verdicts were "
               "kept as they were ({})\n",
               opt.baseline.string(), arch,
               fresh.has_timings() ? "from " + fresh.device->name : std::string("there are none yet"));
  return kExitOk;
}

}  // namespace

int gate_command(const GateCommandOptions& opt) {
  const fs::path root = find_workspace(opt.root);
  const std::vector<std::string> all = task::list_tasks(root);
  const std::vector<std::string> tasks = selected_tasks(opt, all);

  if (opt.update_baseline) require_baseline_folder(opt.baseline);
  std::optional<gate::Baseline> baseline;
  std::error_code ec;
  if (fs::exists(opt.baseline, ec))
    baseline = gate::load_baseline(opt.baseline);
  else if (!opt.update_baseline)
    throw Error("--baseline " + opt.baseline.string() +
                ": no such file (create it with `ako gate --update-baseline --baseline " + opt.baseline.string() +
                "`)");
  const gate::Baseline* base = baseline ? &*baseline : nullptr;

  const exec::GpuProbe gpu = exec::probe_gpu();
  const std::string arch = target_arch(opt, base, gpu);
  jit::check_arch(arch);
  Progress progress(stderr, opt.progress.value_or(is_terminal(stderr)));
  std::vector<gate::TaskOutcome> outcomes;
  for (const auto& t : tasks) outcomes.push_back(gate_task(opt, root, t, arch, progress));

  gate::GateOptions gopt;
  gopt.baseline_file = opt.baseline.string();
  gopt.threshold_pct = opt.threshold_pct;
  gopt.workspace_tasks = {all.begin(), all.end()};
  gopt.nvrtc_version = jit::nvrtc_version_string();
  const gate::GateReport report = gate::evaluate_gate(outcomes, base, gopt);

  // The verdict line is the table's last; on a terminal it is coloured.
  const Style style = style_for(stdout, opt.color);
  const std::string table = gate::render_table(report), verdict = gate::verdict_line(report);
  fmt::print("{}{}", table.substr(0, table.size() - verdict.size()),
             (report.passed() ? style.green(verdict.substr(0, verdict.size() - 1))
                              : style.red(verdict.substr(0, verdict.size() - 1))) + "\n");
  if (!opt.summary_out.empty()) write_file_atomically(opt.summary_out, gate::render_markdown(report));
  if (!opt.json_out.empty()) write_file_atomically(opt.json_out, gate::report_json(report).dump(2) + "\n");

  if (report.build_failed()) return kExitUsage;
  if (opt.update_baseline) return update_baseline(opt, report, base, outcomes, arch);
  return report.passed() ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
