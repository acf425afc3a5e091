// Order of the checks per task: build, correctness (first: a wrong kernel fails whatever its
// speed), coverage against the baseline, timing, resources. Every kind records whether it ran
// and, when not, why.
#include "gate/evaluate.hpp"

#include <map>

#include <fmt/format.h>

#include "gate/case_key.hpp"
#include "gate/compare.hpp"

namespace ako::gate {

namespace {

struct Builder {
  GateReport& report;
  std::string task;
  std::string entry;

  Check& check(CheckKind k, std::string subject, CheckStatus s, std::string detail) {
    Check c;
    c.task = task;
    c.entry = entry;
    c.kind = k;
    c.subject = std::move(subject);
    c.status = s;
    c.detail = std::move(detail);
    report.checks.push_back(std::move(c));
    return report.checks.back();
  }
  void covered(CheckKind k, bool ran, std::string why) {
    report.coverage.push_back({task, entry, k, ran, std::move(why)});
  }
};

const BaselineTask* task_in(const Baseline* b, const std::string& task) {
  if (!b) return nullptr;
  auto it = b->tasks.find(task);
  return it == b->tasks.end() ? nullptr : &it->second;
}

std::string no_baseline_why(const Baseline* b, const std::string& task, const GateOptions& opt) {
  if (b) return "the baseline has no entry for task " + task + " (`ako gate --update-baseline` adds it)";
  if (!opt.no_entry_reason.empty()) return opt.no_entry_reason;
  return "no baseline yet (`ako gate --update-baseline` writes one)";
}

// ", config solution/rmsnorm/configs/default.json (NVIDIA H200 has no config of its own)".
std::string config_text(const ConfigUsed& c) {
  if (c.entry.empty()) return "";  // a result from before per-device configs
  if (c.file.empty()) return ", no config (first allowed values)";
  return ", config " + c.file + (c.fallback ? " (" + c.device + " has no config of its own)" : "");
}

std::string kernel_subject(const std::string& role, const std::string& expr) { return role + " " + expr; }

std::string case_subject(const CaseResult& c) {
  return (c.kind == "reference_check" ? "reference vs oracle " : "") + case_key(c);
}

// A check that needs the GPU and did not run is counted as skipped, one per case, so that the
// verdict line's counts agree with the coverage lines above it.
void skip_gpu_checks(Builder& out, const TaskOutcome& o, CheckKind kind) {
  for (const CaseResult& c : o.result.cases)
    if (kind == CheckKind::correctness || c.kind == "compare")
      out.check(kind, case_subject(c), CheckStatus::skipped, o.not_run_reason);
}

void check_correctness(Builder& out, const TaskOutcome& o) {
  if (!o.ran_on_gpu) {
    skip_gpu_checks(out, o, CheckKind::correctness);
    out.covered(CheckKind::correctness, false, o.not_run_reason);
    return;
  }
  int correct = 0;
  for (const CaseResult& c : o.result.cases) {
    if (c.verdict == Verdict::correct) {
      ++correct;
      continue;
    }
    std::string why = std::string(verdict_name(c.verdict)) + (c.reason.empty() ? "" : ": " + c.reason);
    if (c.verdict == Verdict::failed && !c.fault.empty()) why = "failed (" + c.fault + "): " + c.reason;
    if (c.verdict == Verdict::skipped) why = "not run on the GPU: " + (c.reason.empty() ? "no verdict" : c.reason);
    out.check(CheckKind::correctness, case_subject(c), CheckStatus::fail, why);
  }
  out.covered(CheckKind::correctness, true,
              fmt::format("{} of {} cases correct on {}", correct, o.result.cases.size(), o.result.device.name));
}

// Baseline cases the run lacks, and run cases the baseline lacks.
void check_case_coverage(Builder& out, const TaskOutcome& o, const BaselineTask& bt) {
  if (bt.cases.empty()) {
    out.covered(CheckKind::coverage, false, "the baseline records no cases for this task (resources only)");
    return;
  }
  std::map<std::string, const CaseResult*> ran;
  for (const auto& c : o.result.cases) ran[case_key(c)] = &c;
  int missing = 0, unselected = 0;
  for (const auto& [key, bc] : bt.cases) {
    if (!o.defined_cases.count(key)) {
      ++missing;
      out.check(CheckKind::coverage, key, CheckStatus::fail,
                "missing: the baseline has this case but the task no longer defines it "
                "(if that is intended, update the baseline)");
    } else if (o.ran_on_gpu && !ran.count(key)) {
      ++unselected;
      out.check(CheckKind::coverage, key, CheckStatus::skipped, "not selected by --shapes/--dtypes");
    }
  }
  int fresh = 0;
  if (o.ran_on_gpu)
    for (const auto& [key, c] : ran)
      if (!bt.cases.count(key)) {
        ++fresh;
        out.check(CheckKind::coverage, key, CheckStatus::warn,
                  "new: no baseline entry, so its timing is not compared (update the baseline to gate it)");
      }
  out.covered(CheckKind::coverage, true,
              fmt::format("{} baseline cases: {} missing from the task, {} not selected, {} new in the run",
                          bt.cases.size(), missing, unselected, fresh));
}

void check_timing(Builder& out, const TaskOutcome& o, const Baseline& b, const BaselineTask& bt, double threshold,
                  double min_change_us) {
  std::map<std::string, const BaselineCase*> base;
  for (const auto& [k, c] : bt.cases) base[k] = &c;
  int compared = 0;
  for (const CaseResult& c : o.result.cases) {
    if (c.kind != "compare") continue;
    const std::string key = case_key(c);
    auto it = base.find(key);
    if (it == base.end()) continue;  // reported by coverage
    const BaselineCase& bc = *it->second;
    auto skip = [&](const std::string& why) { out.check(CheckKind::timing, key, CheckStatus::skipped, why); };
    if (c.verdict != Verdict::correct) {
      skip("not compared: the case is not correct");
    } else if (!bc.solution) {
      skip("not compared: the baseline has no timing for this case");
    } else if (!c.solution_time || c.solution_time->samples == 0) {
      skip("not compared: the solution was not timed in this run");
    } else if (c.solution_time->method != bc.solution->method || c.solution_time->cold_l2 != bc.solution->cold_l2) {
      skip(fmt::format("not compared: timed with {} ({}), the baseline with {} ({})", c.solution_time->method,
                       c.solution_time->cold_l2 ? "cold L2" : "hot L2", bc.solution->method,
                       bc.solution->cold_l2 ? "cold L2" : "hot L2"));
    } else {
      const TimingComparison t = compare_timing(*bc.solution, *c.solution_time, threshold, min_change_us);
      Check& ch = out.check(CheckKind::timing, key, t.status, t.detail);
      ch.base_us = t.base_us;
      ch.new_us = t.now_us;
      ch.change_pct = t.change_pct;
      ch.noise_pct = t.noise_pct;
      ch.threshold_pct = threshold;
      ++compared;
    }
  }
  out.covered(CheckKind::timing, true,
              fmt::format("{} cases compared with the baseline on {} (threshold {:.1f}%, changes of {:g} us or less "
                          "within it)", compared, b.device->name, threshold, min_change_us));
}

void check_resources(Builder& out, const TaskOutcome& o, const BaselineTask& bt, const std::string& budget_arch) {
  int compared = 0;
  std::map<std::string, bool> built;  // subject -> seen
  for (const KernelBuild& k : o.result.builds) {
    if (k.role != "reference" && k.role != "solution") continue;
    const std::string subject = kernel_subject(k.role, k.name_expression);
    built[subject] = true;
    const auto role = bt.kernels.find(k.role);
    const BaselineKernel* bk = nullptr;
    if (role != bt.kernels.end()) {
      auto it = role->second.find(k.name_expression);
      if (it != role->second.end()) bk = &it->second;
    }
    if (!bk) {
      out.check(CheckKind::resources, subject, CheckStatus::warn,
                fmt::format("new kernel instance, no budget ({} regs, {}/{} spill st/ld bytes): update the baseline "
                            "to budget it",
                            k.resources.registers, k.resources.spill_stores, k.resources.spill_loads));
      continue;
    }
    const ResourceComparison r = compare_resources(bk->budget, k.resources);
    out.check(CheckKind::resources, subject, r.status, r.detail);
    ++compared;
  }
  for (const auto& [role, by_name] : bt.kernels)
    for (const auto& [expr, bk] : by_name)
      if (!built.count(kernel_subject(role, expr)))
        out.check(CheckKind::resources, kernel_subject(role, expr), CheckStatus::skipped,
                  "not built by this run (not selected, or no case uses this instance any more)");
  out.covered(CheckKind::resources, true, fmt::format("{} kernels compared with their {} budgets", compared, budget_arch));
}

void evaluate_task(GateReport& report, const TaskOutcome& o, const Baseline* b, const GateOptions& opt) {
  Builder out{report, o.task, opt.entry};
  if (!o.build_errors.empty()) {
    for (const auto& e : o.build_errors) out.check(CheckKind::build, o.task, CheckStatus::fail, e);
    out.covered(CheckKind::build, true, "compilation failed");
    for (CheckKind k : {CheckKind::correctness, CheckKind::coverage, CheckKind::timing, CheckKind::resources})
      out.covered(k, false, "compilation failed");
    return;
  }
  out.covered(CheckKind::build, true,
              fmt::format("{} kernels compiled for {}{}", o.result.builds.size(),
                          o.result.builds.empty() ? o.result.device.arch : o.result.builds.front().arch,
                          config_text(o.result.config)));
  check_correctness(out, o);

  const BaselineTask* bt = task_in(b, o.task);
  if (!bt) {
    out.check(CheckKind::coverage, o.task, b ? CheckStatus::warn : CheckStatus::skipped,
              no_baseline_why(b, o.task, opt));
    for (CheckKind k : {CheckKind::coverage, CheckKind::timing, CheckKind::resources})
      out.covered(k, false, no_baseline_why(b, o.task, opt));
    return;
  }
  check_case_coverage(out, o, *bt);

  // What the kernels were compiled for (the device's arch name may lack the 'a' suffix).
  const std::string run_arch = o.result.builds.empty() ? o.result.device.arch : o.result.builds.front().arch;
  if (!o.ran_on_gpu) {
    skip_gpu_checks(out, o, CheckKind::timing);
    out.covered(CheckKind::timing, false, o.not_run_reason);
  }
  else if (!b->has_timings())
    out.covered(CheckKind::timing, false, "the baseline holds resource budgets only (made without a GPU)");
  else if (o.result.device.name != b->device->name)
    out.covered(CheckKind::timing, false,
                fmt::format("different device: the baseline was measured on {}, this run on {}", b->device->name,
                            o.result.device.name));
  else
    check_timing(out, o, *b, *bt, threshold_for(o.task, b, opt), opt.min_change_us);

  if (!run_arch.empty() && run_arch != b->arch)
    out.covered(CheckKind::resources, false,
                fmt::format("compiled for {}, the budgets are for {} (registers differ between archs)", run_arch,
                            b->arch));
  else
    check_resources(out, o, *bt, b->arch);
}

}  // namespace

double threshold_for(const std::string& task, const Baseline* baseline, const GateOptions& options) {
  if (const BaselineTask* t = task_in(baseline, task); t && t->threshold_pct) return *t->threshold_pct;
  if (options.threshold_pct) return *options.threshold_pct;
  return baseline ? baseline->threshold_pct : kDefaultThresholdPct;
}

GateReport evaluate_gate(const std::vector<TaskOutcome>& outcomes, const Baseline* baseline,
                         const GateOptions& options) {
  GateReport report;
  report.baseline_file = options.baseline_file;
  const TaskOutcome* gpu_run = nullptr;
  for (const auto& o : outcomes)
    if (o.ran_on_gpu) gpu_run = &o;
  if (gpu_run) {
    report.mode = "GPU: " + gpu_run->result.device.name + " (" + gpu_run->result.device.arch + ")";
  } else {
    std::string why = "nothing ran on a GPU";
    for (const auto& o : outcomes)
      if (!o.not_run_reason.empty()) why = o.not_run_reason;
    report.mode = why + ": compiled and checked resources only; correctness and timing skipped";
  }

  if (!baseline && !options.no_entry_reason.empty()) report.notes.push_back(options.no_entry_reason);
  if (baseline && !baseline->has_timings())
    report.notes.push_back("the baseline holds resource budgets only (made without a GPU): timings are not "
                           "compared until `ako gate --update-baseline` runs on the target GPU");
  if (baseline && baseline->has_timings() && gpu_run && gpu_run->result.device.name != baseline->device->name)
    report.notes.push_back(fmt::format(
        "different device: the baseline's timings are from {} ({}), this run is on {} ({}); timings are NOT "
        "compared, correctness is",
        baseline->device->name, baseline->device->arch, gpu_run->result.device.name, gpu_run->result.device.arch));
  if (baseline && baseline->has_timings() && gpu_run && gpu_run->result.device.name == baseline->device->name &&
      baseline->device->driver_version != gpu_run->result.device.driver_version)
    report.notes.push_back(fmt::format("driver {} here, {} in the baseline: timings compared anyway",
                                       gpu_run->result.device.driver_version, baseline->device->driver_version));
  if (baseline && baseline->has_timings() && gpu_run && gpu_run->result.device.name == baseline->device->name &&
      timed_before_iqm(*baseline))
    report.notes.push_back(fmt::format("entry {}: timed before the IQM, its medians compared (with this run's medians; "
                                       "`ako gate --update-baseline` records IQMs)",
                                       baseline->device->name));

  if (baseline && !options.nvrtc_version.empty() && !baseline->nvrtc_version.empty() &&
      baseline->nvrtc_version != options.nvrtc_version)
    report.notes.push_back("NVRTC " + options.nvrtc_version + " here, " + baseline->nvrtc_version +
                           " made the budgets: register and spill changes may be the compiler's");

  for (const auto& o : outcomes) evaluate_task(report, o, baseline, options);

  // Baseline tasks this run did not cover.
  if (baseline)
    for (const auto& [name, t] : baseline->tasks) {
      bool ran = false;
      for (const auto& o : outcomes) ran = ran || o.task == name;
      if (ran) continue;
      Builder out{report, name, options.entry};
      if (options.workspace_tasks.count(name))
        out.check(CheckKind::coverage, name, CheckStatus::skipped, "not selected by --tasks");
      else
        out.check(CheckKind::coverage, name, CheckStatus::fail,
                  "missing: the baseline has task " + name + " but tasks/" + name +
                      " does not exist (if it was removed on purpose, update the baseline)");
    }
  return report;
}

}  // namespace ako::gate
