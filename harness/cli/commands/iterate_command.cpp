#include "cli/commands/iterate_command.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "cli/format/hygiene_text.hpp"
#include "cli/format/progress.hpp"
#include "cli/format/style.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/scratch_folder.hpp"
#include "exec/client/gpu_probe.hpp"
#include "git/commit.hpp"
#include "git/iteration_hygiene.hpp"
#include "git/write_guard.hpp"
#include "iterate/assess.hpp"
#include "iterate/commit_message.hpp"
#include "iterate/entry_text.hpp"
#include "iterate/log_markdown.hpp"
#include "iterate/record.hpp"
#include "pipeline/execute_run.hpp"
#include "pipeline/iterate_profile.hpp"
#include "pipeline/workspace.hpp"
#include "task/spec.hpp"

namespace ako::cli {

namespace fs = std::filesystem;
using namespace ako::iterate;

namespace {

struct Context {
  const IterateOptions& opt;
  const char* cmd;  // "ako iterate" or "ako best", for messages
};

// The task's name, checked against tasks/ before anything is touched (its branch is opt/<name>).
std::string resolve_task(const fs::path& root, const std::string& name) {
  const auto tasks = task::list_tasks(root);
  if (!name.empty() && std::find(tasks.begin(), tasks.end(), name) != tasks.end()) return name;
  if (name.empty() && tasks.size() == 1) return tasks.front();
  std::string list;
  for (const auto& t : tasks) list += (list.empty() ? "" : ", ") + t;
  if (list.empty()) list = "none";
  if (!name.empty())
    throw Error("no task '" + name + "': " + (root / "tasks" / name / "task.json").string() +
                " does not exist; tasks under " + (root / "tasks").string() + ": " + list);
  throw Error("--task is needed: tasks/ holds " + (list == "none" ? std::string("no task") : list));
}

std::string title_of(const IterateOptions& opt) {
  std::string t = opt.label.empty() ? opt.hypothesis.substr(0, opt.hypothesis.find('\n')) : opt.label;
  std::replace(t.begin(), t.end(), '\n', ' ');
  if (t.size() > 72) t = t.substr(0, 69) + "...";
  return t;
}

RunResult load_result(const fs::path& file) {
  try {
    return run_result_from_json(nlohmann::json::parse(read_file(file)));
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": not an ako.run/1 result (" + e.what() + ")");
  }
}

std::optional<RunResult> iteration_result(const TrajectoryPaths& p, int iter) {
  const fs::path f = p.iter_dir(iter) / "result.json";
  if (!fs::exists(f)) return std::nullopt;
  return load_result(f);
}

int refuse(const Context& c, const std::string& what, const std::string& fix) {
  fmt::print(stderr, "{}: refused: {}\n  fix: {}\n", c.cmd, what, fix);
  fmt::print("ITERATION: refused (nothing recorded)\n");
  return kExitIncorrect;
}

std::string changes_text(const fs::path& root, const TrajectoryPaths& p, bool is_baseline, int restored_from,
                         const std::string& restored_commit, int previous) {
  const std::string stat = git::diffstat_against_head(root, p.rel_solution());
  if (is_baseline) {
    std::string files;
    if (fs::exists(root / p.rel_solution()))
      for (const auto& e : fs::recursive_directory_iterator(root / p.rel_solution()))
        if (e.is_regular_file()) files += (files.empty() ? "" : ", ") + ("`" + fs::relative(e.path(), root).generic_string() + "`");
    return "Baseline: `" + p.rel_solution() + "/` as mirrored (" + (files.empty() ? "no files" : files) + ")." +
           (stat.empty() ? "" : "\n\nNot yet committed before this run:\n\n```\n" + stat + "```");
  }
  const std::string head = restored_from >= 0
                               ? fmt::format("Restored `{}/` from iter-{} (commit {}); against iter-{}:", p.rel_solution(),
                                             restored_from, restored_commit.substr(0, 7), previous)
                               : fmt::format("`{}/` against iter-{}:", p.rel_solution(), previous);
  if (stat.empty()) return head + " no change.";
  return head + "\n\n```\n" + stat + "```";
}

// The baseline of a task whose entry 0 was written by hand before ako recorded it: the
// measured sections replace the hand-written ones, the prose stays.
void merge_hand_written(LogEntry& entry, const LogEntry& old, const char* cmd) {
  if (!old.hypothesis.empty()) entry.hypothesis = old.hypothesis;
  if (!analysis_is_empty(old)) entry.analysis = old.analysis;
  if (!old.next.empty() && old.next != kNextPlaceholder) entry.next = old.next;
  if (!old.title.empty()) entry.title = old.title;
  fmt::print(stderr, "{}: ITERATIONS.md already had an iteration 0 for this task: its title, Hypothesis, Analysis and "
                     "Next are kept; Changes, Bench and ncu are the measured ones\n", cmd);
}

// Nothing measured is never an iteration, whether the run happened here or was recorded.
void require_measured(const RunResult& r, const std::string& source) {
  if (!nothing_measured(r)) return;
  const std::string why = r.error.empty() ? std::string("no case got a verdict") : r.error;
  throw Error(source + ": " + why + "; nothing was measured, so no iteration was recorded");
}

// What can be known before the user's branch is touched: the recorded result (--result-json)
// must be of this task and measured; otherwise there must be a GPU and a valid spec.
std::optional<RunResult> check_before_starting(const IterateOptions& opt, const fs::path& root, const std::string& task) {
  if (opt.result_json.empty()) {
    task::load_task(root, task);
    const exec::GpuProbe gpu = exec::probe_gpu();
    if (!gpu.available) throw Error("no GPU: " + gpu.reason + "; nothing was measured, so no iteration was recorded");
    return std::nullopt;
  }
  RunResult r = load_result(opt.result_json);
  if (r.task != task)
    throw Error(opt.result_json.string() + ": a result of task '" + r.task + "', not of '" + task + "'");
  require_measured(r, opt.result_json.string());
  return r;
}

RunResult run_task(const IterateOptions& opt, const std::string& task, const fs::path& root, Progress& progress,
                   std::vector<std::string>& notes, const std::optional<RunResult>& recorded) {
  if (recorded) {
    notes.push_back("recorded result " + opt.result_json.string() + " (--result-json: nothing ran on a GPU here)");
    return *recorded;
  }
  pipeline::RunOptions ro;
  ro.task = task;
  ro.root = root;
  ro.shapes = opt.shapes;
  ro.dtypes = opt.dtypes;
  ro.arch = opt.arch;
  ro.max_time_s = opt.max_time_s;
  ro.jobs = opt.jobs;
  ro.no_cache = opt.no_cache;
  ro.cache_dir = opt.cache_dir;
  const pipeline::RunOutcome o = pipeline::execute_run(ro, progress);
  progress.clear();
  require_measured(o.result, "ako run task " + task);
  for (const auto& e : o.compile_errors) notes.push_back("compile error: " + e);
  if (!o.fatal.empty()) notes.push_back("the worker stopped: " + o.fatal);
  return o.result;
}

// An entry that holds measurements (a hand-written baseline, say) is never replaced by one
// that holds none: the Bench table and the summary row would be lost.
std::optional<std::string> unmeasured_overwrite(const IterationLog& log, const std::string& task, int iter,
                                                const RunResult& now) {
  const TaskLog* tl = log.find(task);
  const LogEntry* old = tl ? tl->find(iter) : nullptr;
  const auto measured = [](const std::string& cell) { return !cell.empty() && cell != "-"; };
  if (!old || !measured(old->runtime) || measured(runtime_cell(now))) return std::nullopt;
  return fmt::format("iteration {} of {} in ITERATIONS.md holds measurements (runtime {}), and this run has no correct "
                     "timed case ({}) to replace them with",
                     iter, task, old->runtime, case_counts(now));
}

// Puts the user back on the branch they were on when the iteration fails after its branch was
// made (a GPU error, a refusal, an exception); a committed iteration keeps its branch.
class BranchReturn {
 public:
  BranchReturn(fs::path root, std::string previous, git::IterationBranch made, const char* cmd)
      : root_(std::move(root)), previous_(std::move(previous)), made_(std::move(made)), cmd_(cmd) {}
  BranchReturn(const BranchReturn&) = delete;
  BranchReturn& operator=(const BranchReturn&) = delete;
  ~BranchReturn() {
    if (kept_) return;
    try {
      if (git::leave_iteration_branch(root_, previous_, made_))
        fmt::print(stderr, "{}: back on {}{}\n", cmd_, previous_, made_.created ? " (" + made_.name + " removed)" : "");
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: could not go back to {}: {}\n", cmd_, previous_, e.what());
    }
  }
  void keep() { kept_ = true; }

 private:
  fs::path root_;
  std::string previous_;
  git::IterationBranch made_;
  const char* cmd_;
  bool kept_ = false;
};

// Where the task stands before this iteration.
struct State {
  std::string task;
  std::optional<TrajectorySummary> summary;
  IterationLog log;
  bool is_baseline = true;
  int iter = 0;
};

State read_state(const TrajectoryPaths& paths, const fs::path& log_file) {
  State s;
  s.task = paths.task;
  s.summary = load_trajectory(paths);
  s.log = fs::exists(log_file) ? parse_log(read_file(log_file), log_file.string()) : IterationLog{default_preamble(), {}};
  s.is_baseline = !s.summary;
  s.iter = s.is_baseline ? 0 : s.summary->next_iter();
  return s;
}

// The previous iteration must be understood before the next one starts.
std::optional<int> refuse_empty_analysis(const Context& c, const State& s, const std::string& task) {
  if (s.is_baseline || c.opt.force) return std::nullopt;
  const int last = s.summary->iterations.back().iter;
  const TaskLog* tl = s.log.find(task);
  const LogEntry* e = tl ? tl->find(last) : nullptr;
  if (e && !analysis_is_empty(*e)) return std::nullopt;
  return refuse(c, fmt::format("the Analysis of iteration {} of {} in ITERATIONS.md is still empty", last, task),
                fmt::format("write it (what the numbers say and why) under '### Iter {}', or pass --force", last));
}

// Hygiene (the iteration's own work, the solution and the log, may be uncommitted, nothing
// else), then opt/<task>: made from upstream/<default> by the baseline, required after it.
// Returns a refusal's exit status; `back` is armed when HEAD was moved onto the branch.
std::optional<int> enter_branch(const Context& c, const fs::path& root, const TrajectoryPaths& paths, bool is_baseline,
                                std::optional<BranchReturn>& back) {
  git::HygieneOptions h;
  h.root = root;
  h.upstream_url = c.opt.upstream_url;
  h.default_branch = c.opt.default_branch;
  const git::HygieneReport report = git::check_hygiene_allowing(h, {paths.rel_solution(), "ITERATIONS.md"});
  if (!report.clean()) {
    fmt::print(stderr, "{}", render_hygiene_findings(report));
    return refuse(c, hygiene_summary_line(report), "each problem above names its fix; ako doctor shows the details");
  }
  const std::string branch = "opt/" + paths.task;
  if (report.facts.head_branch == branch) return std::nullopt;
  if (!is_baseline)
    return refuse(c, fmt::format("iterations of {} continue on {}, but HEAD is on {}", paths.task, branch,
                                 report.facts.head_branch),
                  "git switch " + branch);
  try {
    const git::IterationBranch b = git::create_iteration_branch(root, paths.task, report.facts.start_point);
    back.emplace(root, report.facts.head_branch, b, c.cmd);
    fmt::print(stderr, "{}: {} {} at {}\n", c.cmd, b.created ? "created branch" : "switched to", b.name, b.oid.substr(0, 7));
  } catch (const git::Refusal& r) {
    return refuse(c, r.finding.message, r.finding.fix);
  }
  return std::nullopt;
}

struct Restored {
  int from = -1;       // the iteration restored (ako best), -1 otherwise
  std::string commit;  // its commit
};

// ako best: the exact source the best iteration benched, from its commit.
std::optional<int> restore_best(const Context& c, const fs::path& root, const TrajectoryPaths& paths,
                                const TrajectorySummary& summary, Restored& out) {
  out.from = summary.best;
  const IterationRecord* rec = summary.find(out.from);
  if (!rec || !rec->commit)
    throw Error(fmt::format("cannot find the commit of iteration {} of {} (no commit on this branch carries "
                            "'task: {}' and 'iter: {}')", out.from, paths.task, paths.task, out.from));
  out.commit = *rec->commit;
  const auto dirty = git::changed_paths(root, paths.rel_solution());
  if (!dirty.empty()) {
    std::string list;
    for (const auto& d : dirty) list += (list.empty() ? "" : ", ") + d;
    return refuse(c, "restoring iter-" + std::to_string(out.from) + " would overwrite uncommitted changes: " + list,
                  "record them first (ako iterate -m \"...\"), or drop them: git checkout HEAD -- " + paths.rel_solution());
  }
  git::checkout_paths(root, out.commit, {paths.rel_solution()});
  fmt::print(stderr, "{}: restored {}/ from iter-{} ({})\n", c.cmd, paths.rel_solution(), out.from, out.commit.substr(0, 7));
  return std::nullopt;
}

// Everything the entry, the summary and the commit are made of.
struct Judged {
  RunResult now;
  std::vector<std::string> notes;
  std::string title, hypothesis, changes;
  std::optional<RunResult> baseline_result, best_result;
  Assessment a;
  pipeline::ProfileRun prof;
  bool want_profile = false;
};

// Pointers into `s` and `j`: rebuilt where needed, never stored in a value that moves.
History history_of(const State& s, const Judged& j) {
  return History{s.summary ? &*s.summary : nullptr, j.baseline_result ? &*j.baseline_result : nullptr,
                 j.best_result ? &*j.best_result : nullptr};
}

LogEntry make_entry(const State& s, const Judged& j, const TrajectoryPaths& paths) {
  LogEntry entry;
  entry.iter = s.iter;
  entry.title = j.title;
  entry.speedup = speedup_cell(j.now);
  entry.runtime = runtime_cell(j.now);
  entry.status = status_name(j.a.status);
  entry.hypothesis = j.hypothesis;
  entry.changes = j.changes;
  BenchContext bc;
  const History history = history_of(s, j);
  bc.baseline = history.baseline;
  bc.best = history.best;
  bc.best_iter = s.summary ? s.summary->best : 0;
  bc.notes = j.notes;
  entry.bench = bench_markdown(j.now, bc);
  const std::string report_rel = paths.rel_iter(s.iter) + "/ncu.ncu-rep";
  entry.ncu = j.prof.ok ? ncu_markdown(j.prof.summary, j.prof.case_label, report_rel) +
                              (j.prof.message.empty() ? "" : "\n" + j.prof.message)
              : j.want_profile ? j.prof.message
                               : "Not profiled (`--ncu` profiles the hottest case).";
  entry.analysis = kAnalysisPlaceholder;
  entry.next = kNextPlaceholder;
  return entry;
}

CommitFacts make_facts(const Context& c, const State& s, const Judged& j, const LogEntry& entry,
                       const Restored& restored, int best) {
  CommitFacts f;
  f.kind = c.opt.restore_best ? CommitKind::restore : s.is_baseline ? CommitKind::baseline : CommitKind::iteration;
  f.task = s.task;
  f.iter = s.iter;
  f.title = entry.title;
  f.restored_from = restored.from;
  f.gpu = j.now.device.name;
  f.correctness = correctness_word(j.now);
  f.status = entry.status;
  f.speedup_vs_baseline = j.a.speedup_vs_baseline;
  if (j.now.summary.runtime_us > 0) f.speedup_vs_reference = j.now.summary.speedup;
  f.runtime_us = j.a.runtime_us;
  f.best = best;
  f.cases = case_counts(j.now);
  f.ncu = j.prof.ok ? ncu_line(j.prof.summary, j.prof.case_label) : j.want_profile ? j.prof.message : "";
  f.hypothesis = j.hypothesis;
  return f;
}

// The run, judged against the baseline and the best so far; ncu when asked or stalled.
Judged run_and_judge(const Context& c, const fs::path& root, const TrajectoryPaths& paths, const State& s,
                     const Restored& restored, const std::optional<RunResult>& recorded, Progress& progress,
                     const fs::path& scratch) {
  const IterateOptions& opt = c.opt;
  Judged j;
  const int previous = s.is_baseline ? -1 : s.summary->iterations.back().iter;
  j.changes = changes_text(root, paths, s.is_baseline, restored.from, restored.commit, previous);
  fmt::print(stderr, "{}: iteration {} of {}: running the task\n", c.cmd, s.iter, paths.task);
  j.now = run_task(opt, paths.task, root, progress, j.notes, recorded);
  if (!s.is_baseline) {
    j.baseline_result = iteration_result(paths, s.summary->baseline);
    j.best_result = iteration_result(paths, s.summary->best);
  }
  j.title = opt.restore_best ? fmt::format("Restore iter-{}", restored.from) : title_of(opt);
  j.hypothesis = opt.hypothesis.empty()
                     ? fmt::format("Restore the best iteration ({}) and re-verify it.", restored.from)
                     : opt.hypothesis;
  j.a = assess(j.now, s.iter, j.title, j.hypothesis, history_of(s, j));
  if (j.a.stall.stalled) fmt::print(stderr, "{}", stall_warning(j.a.stall));
  j.want_profile = opt.ncu || j.a.stall.stalled;
  if (j.want_profile) {
    j.prof = pipeline::profile_hottest_case(root, j.now, scratch, {opt.arch, opt.cache_dir}, progress);
    if (!j.prof.message.empty()) fmt::print(stderr, "{}: ncu: {}\n", c.cmd, j.prof.message);
  }
  return j;
}

void print_outcome(const Context& c, const State& s, const LogEntry& entry, const CommitFacts& f,
                   const std::string& message, const git::CommitMade& made, const Judged& j) {
  for (const auto& p : made.skipped_ignored)
    fmt::print(stderr, "{}: {} is kept on disk but not committed: the repository's .gitignore excludes it\n", c.cmd, p);
  fmt::print("ITERATION: {} recorded ({})\n", s.iter, entry.status);
  fmt::print("COMMIT: {} {}\n", made.oid.substr(0, 7), message.substr(0, message.find('\n')));
  fmt::print("CORRECT: {} ({})\n", f.correctness, f.cases);
  fmt::print("SPEEDUP_VS_BASELINE: {}\n", j.a.speedup_vs_baseline ? fmt::format("{:.4f}x", *j.a.speedup_vs_baseline) : "-");
  fmt::print("RUNTIME: {}\n", j.a.runtime_us ? fmt::format("{:.2f} us", *j.a.runtime_us) : "-");
  fmt::print("BEST: iter {}\n", f.best);
  fmt::print("NCU: {}\n", f.ncu.empty() ? "not profiled" : f.ncu);
  if (j.a.stall.stalled) fmt::print("STALL: yes ({} iterations under +{:.0f}% over the best)\n", kStallRun, kStallGainPct);
  fmt::print(stderr, "{}: now fill in the Analysis and Next of iteration {} in ITERATIONS.md\n", c.cmd, s.iter);
}

// The entry goes into the log; a hand-written baseline keeps its prose (and `entry` its title).
void place_entry(const Context& c, State& s, LogEntry& entry) {
  TaskLog& tl = s.log.task(s.task);
  LogEntry* old = tl.find(s.iter);
  if (!old) {
    tl.entries.push_back(entry);
    return;
  }
  if (s.is_baseline) merge_hand_written(entry, *old, c.cmd);
  *old = entry;
}

// The log, the summary, the result and the profile, committed as one iteration.
git::CommitMade record(const fs::path& root, const State& s, const Judged& j, const CommitFacts& f,
                       const TrajectorySummary& next, std::string& message) {
  IterationFiles files;
  files.task = s.task;
  files.iter = s.iter;
  files.commit_message = message = commit_message(f);
  files.log_markdown = render_log(s.log);
  files.summary_json = to_json(next).dump(2) + "\n";
  files.result_json = to_json(j.now).dump(2) + "\n";
  if (j.prof.ok) {
    nlohmann::json ncu = profile::to_json(j.prof.summary);
    ncu["case"] = j.prof.case_label;  // which case was profiled: ako report's before/after table says so
    files.ncu_json = ncu.dump(2) + "\n";
    files.extra = {j.prof.report, j.prof.csv};
  }
  return record_iteration(root, files);
}

}  // namespace

int iterate_command(const IterateOptions& opt) {
  const Context c{opt, opt.restore_best ? "ako best" : "ako iterate"};
  const fs::path root = pipeline::find_workspace(opt.root);
  const std::string task = resolve_task(root, opt.task);
  const TrajectoryPaths paths{root, task};
  if (!opt.restore_best && opt.hypothesis.empty())
    throw Error("-m \"hypothesis\" is required: what this iteration changes and what it should do to the numbers");
  const std::optional<RunResult> recorded = check_before_starting(opt, root, task);
  Progress progress(stderr, opt.progress.value_or(is_terminal(stderr)));

  // From here on ako may write to the repository; a kill at any point leaves what the next
  // call repairs: git's lock files (the guard), then the iteration itself (the journal).
  const git::WriteGuard guard(root);
  for (const auto& line : guard.repaired()) fmt::print(stderr, "{}: {}\n", c.cmd, line);
  // An earlier run that was interrupted is finished or undone, whichever its commit says.
  for (const auto& line : recover_interrupted(root, task)) fmt::print(stderr, "{}: {}\n", c.cmd, line);

  State s = read_state(paths, root / "ITERATIONS.md");
  if (opt.restore_best && s.is_baseline)
    throw Error("no iteration of " + task + " is recorded yet (no " + paths.rel_summary() +
                "); record the baseline first: ako iterate --task " + task + " -m \"...\"");
  if (recorded)
    if (const auto why = unmeasured_overwrite(s.log, task, s.iter, *recorded))
      return refuse(c, *why, "record a run with correct timed cases, or move that entry out of ITERATIONS.md first");
  if (const auto refused = refuse_empty_analysis(c, s, task)) return *refused;

  std::optional<BranchReturn> back;  // from here on, a failure puts the user back where they were
  if (const auto refused = enter_branch(c, root, paths, s.is_baseline, back)) return *refused;
  Restored restored;
  if (opt.restore_best)
    if (const auto refused = restore_best(c, root, paths, *s.summary, restored)) return *refused;

  const fs::path scratch = scratch_path("iterate");
  const ScratchFolder scratch_mark(scratch);   // common/scratch_folder.hpp
  const Judged j = run_and_judge(c, root, paths, s, restored, recorded, progress, scratch);
  if (const auto why = unmeasured_overwrite(s.log, task, s.iter, j.now))
    return refuse(c, *why, "make the solution correct and run again, or move that entry out of ITERATIONS.md first");

  LogEntry entry = make_entry(s, j, paths);
  place_entry(c, s, entry);
  TrajectorySummary next = s.summary ? *s.summary : TrajectorySummary{task, 0, 0, {}};
  IterationRecord rec = j.a.record;
  rec.title = entry.title;
  rec.profiled = j.prof.ok;
  next.iterations.push_back(rec);
  next.best = j.a.best_after;
  const CommitFacts f = make_facts(c, s, j, entry, restored, next.best);
  std::string message;
  const git::CommitMade made = record(root, s, j, f, next, message);
  if (back) back->keep();
  std::error_code ec;
  if (j.prof.ok || !j.want_profile) fs::remove_all(scratch, ec);  // a failed profile keeps its logs for reading
  print_outcome(c, s, entry, f, message, made, j);
  return f.correctness == "correct" ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
