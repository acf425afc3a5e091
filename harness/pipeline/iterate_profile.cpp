#include "pipeline/iterate_profile.hpp"

#include <fmt/format.h>

#include "model/dtype.hpp"
#include "common/error.hpp"
#include "gate/case_key.hpp"
#include "profile/ncu_profile.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task/spec.hpp"

namespace ako::pipeline {

namespace fs = std::filesystem;

namespace {

// Seconds the profiled `ako run` may take under ncu: ncu's limit and the run's case timeout.
constexpr int kNcuRunLimitS = 600;

// The exact kernel of the case: its solution instantiation's mangled name from the run's
// builds; else a regex on the function name (every instantiation then matches).
std::string kernel_filter(const fs::path& root, const RunResult& r, const CaseResult& c, std::string& note) {
  std::string expression;
  try {
    task::TaskSpec spec = task::load_task(root, r.task);
    // The params the run used: the config entry it recorded (older results: default.json).
    if (!r.config.entry.empty() && r.config.entry != "none")
      task::use_device_config(spec, r.config.entry, task::kDeviceFromOption);
    task::CaseFilter filter;
    filter.shapes = {c.shape};
    if (const auto d = parse_dtype(c.dtype)) filter.dtypes = {*d};
    for (const auto& tc : task::expand_cases(spec, filter, {}, false))
      if (tc.label() == gate::case_key(c) && tc.solution) expression = tc.solution->name_expression;
  } catch (const Error& e) {
    note = std::string("could not evaluate the case's kernel (") + e.what() + ")";
  }
  std::string any_solution;
  for (const auto& b : r.builds) {
    if (b.role != "solution") continue;
    if (any_solution.empty()) any_solution = b.name_expression;
    if (!expression.empty() && b.name_expression == expression && !b.lowered_name.empty()) return b.lowered_name;
  }
  const std::string name = expression.empty() ? any_solution : expression;
  const std::string function = name.substr(0, name.find('<'));
  if (note.empty()) note = "the exact instantiation was not among the builds; every launch of " + function + " matches";
  return "regex:^" + function + "$";
}

}  // namespace

const CaseResult* hottest_case(const RunResult& r) {
  const CaseResult* hot = nullptr;
  for (const auto& c : r.cases)
    if (c.kind == "compare" && c.verdict == Verdict::correct && c.solution_time && c.solution_time->samples > 0 &&
        (!hot || c.solution_time->iqm_us > hot->solution_time->iqm_us))
      hot = &c;
  return hot;
}

ProfileRun profile_hottest_case(const fs::path& root, const RunResult& result, const fs::path& scratch,
                                const ProfileOptions& opt, ProgressSink& progress) {
  ProfileRun out;
  const CaseResult* hot = hottest_case(result);
  if (!hot) {
    out.message = "not profiled: no case is correct and timed, so there is no kernel worth profiling";
    return out;
  }
  out.case_label = gate::case_key(*hot);
  std::string looked;
  const auto ncu = profile::find_ncu(looked);
  if (!ncu) {
    out.message = "not profiled: ncu (Nsight Compute) was not found (looked at " + looked +
                  "); install it or set AKO_NCU to its path";
    return out;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    out.message = "not profiled: cannot locate the ako executable (/proc/self/exe): " + ec.message();
    return out;
  }
  profile::NcuRequest req;
  req.ncu = *ncu;
  std::string note;
  req.kernel = kernel_filter(root, result, *hot, note);
  // With --trials 1 the first matching launch is the validation launch (the first use of the
  // module); the second is the first timed one.
  req.launch_skip = 1;
  fs::create_directories(scratch);
  req.report = scratch / "ncu.ncu-rep";
  req.log_file = scratch / "ncu.log";
  // --case-timeout: ncu replays the profiled launch once per pass (18 for these sections), each
  // inside one launch of ako's watchdog; its usual limit (max(2 s, 1000 x the reference)) stopped
  // the replay on the H200 (ncu: "Failed to profile", the worker gone). A 600 s case timeout
  // makes that limit max(20 s, ...) (exec/protocol/launch_limit.hpp); ncu's own limit bounds it.
  req.app = {self.string(), "run", "task", result.task, "--root", root.string(), "--shapes", hot->shape,
             "--dtypes", hot->dtype, "--no-cupti", "--no-checks", "--trials", "1", "--max-time", "0.05",
             "--case-timeout", std::to_string(kNcuRunLimitS), "--no-progress", "--color", "never"};
  if (!opt.arch.empty()) req.app.insert(req.app.end(), {"--arch", opt.arch});
  if (!opt.cache_dir.empty()) req.app.insert(req.app.end(), {"--cache-dir", opt.cache_dir.string()});
  progress.note("profiling " + out.case_label + " with ncu");
  fmt::print(stderr, "ako iterate: ncu: {}\n", profile::shell_words(profile::ncu_profile_argv(req)));
  const profile::NcuOutcome o = profile::run_ncu(req, kNcuRunLimitS);
  progress.clear();
  if (!o.ok) {
    out.message = "not profiled: " + o.error;
    return out;
  }
  out.ok = true;
  out.summary = o.summary;
  out.report = req.report;
  out.csv = o.csv;
  if (!note.empty()) out.message = note;
  return out;
}

}  // namespace ako::pipeline
