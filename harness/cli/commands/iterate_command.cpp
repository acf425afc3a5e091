#include "cli/commands/iterate_command.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "cli/commands/iterate_profile.hpp"
#include "cli/commands/run_command.hpp"
#include "cli/commands/workspace.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format/hygiene_text.hpp"
#include "cli/format/style.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "git/commit.hpp"
#include "git/iteration_hygiene.hpp"
#include "iterate/assess.hpp"
#include "iterate/commit_message.hpp"
#include "iterate/entry_text.hpp"
#include "iterate/log_markdown.hpp"
#include "iterate/record.hpp"
#include "task/spec.hpp"

namespace ako::cli {

namespace fs = std::filesystem;
using namespace ako::iterate;

namespace {

struct Context {
  const IterateOptions& opt;
  const char* cmd;  // "ako iterate" or "ako best", for messages
};

std::string resolve_task(const fs::path& root, const std::string& name) {
  if (!name.empty()) return name;
  const auto tasks = task::list_tasks(root);
  if (tasks.size() == 1) return tasks.front();
  std::string list;
  for (const auto& t : tasks) list += (list.empty() ? "" : ", ") + t;
  throw Error("--task is needed: tasks/ holds " + (list.empty() ? std::string("no task") : list));
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

RunResult run_task(const IterateOptions& opt, const std::string& task, const fs::path& root, Progress& progress,
                   std::vector<std::string>& notes) {
  if (!opt.result_json.empty()) {
    notes.push_back("recorded result " + opt.result_json.string() + " (--result-json: nothing ran on a GPU)");
    return load_result(opt.result_json);
  }
  RunOptions ro;
  ro.task = task;
  ro.root = root;
  ro.shapes = opt.shapes;
  ro.dtypes = opt.dtypes;
  ro.arch = opt.arch;
  ro.max_time_s = opt.max_time_s;
  ro.jobs = opt.jobs;
  ro.no_cache = opt.no_cache;
  ro.cache_dir = opt.cache_dir;
  const RunOutcome o = execute_run(ro, progress);
  progress.clear();
  if (o.stage == RunStage::no_gpu)
    throw Error("no GPU: " + o.no_gpu_reason + "; nothing was measured, so no iteration was recorded");
  for (const auto& e : o.compile_errors) notes.push_back("compile error: " + e);
  if (!o.fatal.empty()) notes.push_back("the worker stopped: " + o.fatal);
  return o.result;
}

}  // namespace

int iterate_command(const IterateOptions& opt) {
  const Context c{opt, opt.restore_best ? "ako best" : "ako iterate"};
  const fs::path root = find_workspace(opt.root);
  const std::string task = resolve_task(root, opt.task);
  const TrajectoryPaths paths{root, task};
  Progress progress(stderr, opt.progress.value_or(is_terminal(stderr)));

  // 0. An earlier run that was interrupted is finished or undone, whichever its commit says.
  for (const auto& line : recover_interrupted(root, task)) fmt::print(stderr, "{}: {}\n", c.cmd, line);

  // 1. Where the task stands.
  const std::optional<TrajectorySummary> summary = load_trajectory(paths);
  const fs::path log_file = root / "ITERATIONS.md";
  IterationLog log = fs::exists(log_file) ? parse_log(read_file(log_file), log_file.string())
                                          : IterationLog{default_preamble(), {}};
  const bool is_baseline = !summary;
  if (opt.restore_best && is_baseline)
    throw Error("no iteration of " + task + " is recorded yet (no " + paths.rel_summary() +
                "); record the baseline first: ako iterate --task " + task + " -m \"...\"");
  if (!opt.restore_best && opt.hypothesis.empty())
    throw Error("-m \"hypothesis\" is required: what this iteration changes and what it should do to the numbers");
  const int iter = is_baseline ? 0 : summary->next_iter();

  // 2. The previous iteration must be understood before the next one starts.
  if (!is_baseline && !opt.force) {
    const int last = summary->iterations.back().iter;
    const TaskLog* tl = log.find(task);
    const LogEntry* e = tl ? tl->find(last) : nullptr;
    if (!e || analysis_is_empty(*e))
      return refuse(c, fmt::format("the Analysis of iteration {} of {} in ITERATIONS.md is still empty", last, task),
                    fmt::format("write it (what the numbers say and why) under '### Iter {}', or pass --force", last));
  }

  // 3. Hygiene: the iteration's own work (solution, the log) may be uncommitted, nothing else.
  git::HygieneOptions h;
  h.root = root;
  h.upstream_url = opt.upstream_url;
  h.default_branch = opt.default_branch;
  const git::HygieneReport report = git::check_hygiene_allowing(h, {paths.rel_solution(), "ITERATIONS.md"});
  if (!report.clean()) {
    fmt::print(stderr, "{}", render_hygiene_findings(report));
    return refuse(c, hygiene_summary_line(report), "each problem above names its fix; ako doctor shows the details");
  }
  const std::string branch = "opt/" + task;
  if (report.facts.head_branch != branch) {
    if (!is_baseline)
      return refuse(c, fmt::format("iterations of {} continue on {}, but HEAD is on {}", task, branch,
                                   report.facts.head_branch),
                    "git switch " + branch);
    try {
      const git::IterationBranch b = git::create_iteration_branch(root, task, report.facts.start_point);
      fmt::print(stderr, "{}: {} {} at {}\n", c.cmd, b.created ? "created branch" : "switched to", b.name, b.oid.substr(0, 7));
    } catch (const git::Refusal& r) {
      return refuse(c, r.finding.message, r.finding.fix);
    }
  }

  // 4. ako best: the exact source the best iteration benched, from its commit.
  int restored_from = -1;
  std::string restored_commit;
  if (opt.restore_best) {
    restored_from = summary->best;
    const IterationRecord* rec = summary->find(restored_from);
    if (!rec || !rec->commit)
      throw Error(fmt::format("cannot find the commit of iteration {} of {} (no commit on this branch carries "
                              "'task: {}' and 'iter: {}')", restored_from, task, task, restored_from));
    restored_commit = *rec->commit;
    const auto dirty = git::changed_paths(root, paths.rel_solution());
    if (!dirty.empty()) {
      std::string list;
      for (const auto& d : dirty) list += (list.empty() ? "" : ", ") + d;
      return refuse(c, "restoring iter-" + std::to_string(restored_from) + " would overwrite uncommitted changes: " + list,
                    "record them first (ako iterate -m \"...\"), or drop them: git checkout HEAD -- " + paths.rel_solution());
    }
    git::checkout_paths(root, restored_commit, {paths.rel_solution()});
    fmt::print(stderr, "{}: restored {}/ from iter-{} ({})\n", c.cmd, paths.rel_solution(), restored_from,
               restored_commit.substr(0, 7));
  }
  const int previous = is_baseline ? -1 : summary->iterations.back().iter;
  const std::string changes = changes_text(root, paths, is_baseline, restored_from, restored_commit, previous);

  // 5. The run: full validation and timing.
  fmt::print(stderr, "{}: iteration {} of {}: running the task\n", c.cmd, iter, task);
  std::vector<std::string> notes;
  const RunResult now = run_task(opt, task, root, progress, notes);

  // 6. Against the baseline and the best so far; the stall rule.
  std::optional<RunResult> baseline_result, best_result;
  if (!is_baseline) {
    baseline_result = iteration_result(paths, summary->baseline);
    best_result = iteration_result(paths, summary->best);
  }
  const std::string title = opt.restore_best ? fmt::format("Restore iter-{}", restored_from) : title_of(opt);
  const std::string hypothesis =
      opt.hypothesis.empty() ? fmt::format("Restore the best iteration ({}) and re-verify it.", restored_from) : opt.hypothesis;
  const History history{summary ? &*summary : nullptr, baseline_result ? &*baseline_result : nullptr,
                        best_result ? &*best_result : nullptr};
  const Assessment a = assess(now, iter, title, hypothesis, history);
  if (a.stall.stalled) fmt::print(stderr, "{}", stall_warning(a.stall));

  // 7. ncu when asked, or when stalled.
  const fs::path scratch = fs::temp_directory_path() / fmt::format("ako-iterate-{}", ::getpid());
  ProfileRun prof;
  const bool want_profile = opt.ncu || a.stall.stalled;
  if (want_profile) {
    prof = profile_hottest_case(root, now, scratch, opt, progress);
    if (!prof.message.empty()) fmt::print(stderr, "{}: ncu: {}\n", c.cmd, prof.message);
  }

  // 8. The log entry.
  LogEntry entry;
  entry.iter = iter;
  entry.title = title;
  entry.speedup = speedup_cell(now);
  entry.runtime = runtime_cell(now);
  entry.status = status_name(a.status);
  entry.hypothesis = hypothesis;
  entry.changes = changes;
  BenchContext bc;
  bc.baseline = history.baseline;
  bc.best = history.best;
  bc.best_iter = summary ? summary->best : 0;
  bc.notes = notes;
  entry.bench = bench_markdown(now, bc);
  const std::string report_rel = paths.rel_iter(iter) + "/ncu.ncu-rep";
  entry.ncu = prof.ok ? ncu_markdown(prof.summary, prof.case_label, report_rel) + (prof.message.empty() ? "" : "\n" + prof.message)
              : want_profile ? prof.message
                             : "Not profiled (`--ncu` profiles the hottest case).";
  entry.analysis = kAnalysisPlaceholder;
  entry.next = kNextPlaceholder;
  TaskLog& tl = log.task(task);
  if (LogEntry* old = tl.find(iter)) {
    if (is_baseline) merge_hand_written(entry, *old, c.cmd);
    *old = entry;
  } else {
    tl.entries.push_back(entry);
  }

  // 9. The trajectory summary.
  TrajectorySummary next = summary ? *summary : TrajectorySummary{task, 0, 0, {}};
  IterationRecord rec = a.record;
  rec.title = entry.title;
  rec.profiled = prof.ok;
  next.iterations.push_back(rec);
  next.best = a.best_after;

  // 10. The commit message and the record.
  CommitFacts f;
  f.kind = opt.restore_best ? CommitKind::restore : is_baseline ? CommitKind::baseline : CommitKind::iteration;
  f.task = task;
  f.iter = iter;
  f.title = entry.title;
  f.restored_from = restored_from;
  f.gpu = now.device.name;
  f.correctness = correctness_word(now);
  f.status = entry.status;
  f.speedup_vs_baseline = a.speedup_vs_baseline;
  if (now.summary.runtime_us > 0) f.speedup_vs_reference = now.summary.speedup;
  f.median_us = a.median_us;
  f.best = next.best;
  f.cases = case_counts(now);
  f.ncu = prof.ok ? ncu_line(prof.summary, prof.case_label) : want_profile ? prof.message : "";
  f.hypothesis = hypothesis;

  IterationFiles files;
  files.task = task;
  files.iter = iter;
  files.commit_message = commit_message(f);
  files.log_markdown = render_log(log);
  files.summary_json = to_json(next).dump(2) + "\n";
  files.result_json = to_json(now).dump(2) + "\n";
  if (prof.ok) {
    files.ncu_json = profile::to_json(prof.summary).dump(2) + "\n";
    files.extra = {prof.report, prof.csv};
  }
  const git::CommitMade made = record_iteration(root, files);
  std::error_code ec;
  if (prof.ok || !want_profile) fs::remove_all(scratch, ec);  // a failed profile keeps its logs for reading

  // 11. What happened, for people (stderr) and scripts (stdout).
  for (const auto& p : made.skipped_ignored)
    fmt::print(stderr, "{}: {} is kept on disk but not committed: the repository's .gitignore excludes it\n", c.cmd, p);
  fmt::print("ITERATION: {} recorded ({})\n", iter, entry.status);
  fmt::print("COMMIT: {} {}\n", made.oid.substr(0, 7), files.commit_message.substr(0, files.commit_message.find('\n')));
  fmt::print("CORRECT: {} ({})\n", f.correctness, f.cases);
  fmt::print("SPEEDUP_VS_BASELINE: {}\n", a.speedup_vs_baseline ? fmt::format("{:.4f}x", *a.speedup_vs_baseline) : "-");
  fmt::print("RUNTIME: {}\n", a.median_us ? fmt::format("{:.2f} us", *a.median_us) : "-");
  fmt::print("BEST: iter {}\n", next.best);
  fmt::print("NCU: {}\n", f.ncu.empty() ? "not profiled" : f.ncu);
  if (a.stall.stalled) fmt::print("STALL: yes ({} iterations under +{:.0f}% over the best)\n", kStallRun, kStallGainPct);
  fmt::print(stderr, "{}: now fill in the Analysis and Next of iteration {} in ITERATIONS.md\n", c.cmd, iter);
  return f.correctness == "correct" ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
