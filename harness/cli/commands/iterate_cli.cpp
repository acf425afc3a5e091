#include "cli/commands/iterate_cli.hpp"

#include "cli/commands/number_checks.hpp"

namespace ako::cli {

namespace {

// What both commands share: where, which cases, how to build, how to check hygiene.
void add_shared(CLI::App* cmd, IterateOptions& o, bool& progress_off) {
  cmd->add_option("--task", o.task, "the task (a folder under tasks/; default: the only one)");
  cmd->add_option("--root", o.root, "workspace root (default: nearest folder with tasks/ upward from here)");
  cmd->add_flag("--ncu", o.ncu,
                "profile the hottest case with Nsight Compute (ncu on PATH, or $AKO_NCU) and log DRAM %, occupancy,\n"
                "registers, spills and the dominant stall; the .ncu-rep goes into the trajectory");
  cmd->add_flag("--force", o.force, "start although the previous iteration's Analysis in ITERATIONS.md is empty");
  cmd->add_option("--shapes", o.shapes, "only these shapes (comparisons use the cases both runs share)")->delimiter(',');
  cmd->add_option("--dtypes", o.dtypes, "only these dtypes, comma separated")->delimiter(',');
  cmd->add_option("--arch", o.arch, "target arch for NVRTC (default: the GPU's)");
  cmd->add_option("--max-time", o.max_time_s, "timing budget per kernel and case, seconds")
      ->capture_default_str()->check(ako::cli::kPositive);
  cmd->add_option("-j,--jobs", o.jobs, "parallel compile processes, at least 1 (default: number of CPUs)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-cache", o.no_cache, "compile everything again");
  cmd->add_option("--cache-dir", o.cache_dir, "kernel cache (default: as for run)");
  cmd->add_option("--upstream-url", o.upstream_url, "URL for the upstream remote when it is missing (as for doctor)");
  cmd->add_option("--default-branch", o.default_branch, "the default branch (as for doctor)");
  cmd->add_option("--result-json", o.result_json,
                  "record this `ako run --json` result of the task (e.g. made on a GPU machine) instead of running it\n"
                  "here; refused, as a run here would be, when nothing in it was measured")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--no-progress", progress_off, "never show the progress line");
}

}  // namespace

IterateCli::IterateCli(CLI::App& app) {
  iterate_cmd_ = app.add_subcommand(
      "iterate",
      "one AKO iteration: check hygiene (only solution/<task>/ and ITERATIONS.md may be uncommitted), run the task\n"
      "in full, compare every case with the baseline and the best so far (noise-aware), append the entry to\n"
      "ITERATIONS.md, snapshot the benched source and result under trajectory/<task>/iter-N/, and commit\n"
      "'[iter N] <title>' on opt/<task> through libgit2. The first call records the baseline (iteration 0) and\n"
      "creates opt/<task> from upstream/<default>. Refuses while the previous Analysis is empty (--force).\n"
      "After three iterations under +3% over the best it warns, shows the last three hypotheses and runs ncu.\n"
      "Exit 0 recorded, every case correct; 1 recorded with incorrect/failed cases, or refused (nothing\n"
      "recorded; the ITERATION: line says which); 2 usage or environment error (e.g. no GPU), nothing recorded.");
  iterate_cmd_->add_option("-m,--message", iterate_.hypothesis, "the hypothesis: what this iteration changes and why")
      ->required();
  iterate_cmd_->add_option("--label", iterate_.label, "short title for the log and the commit (default: the hypothesis' first line)");
  iterate_cmd_->add_flag("--restore-best", iterate_.restore_best, "the same as ako best");
  add_shared(iterate_cmd_, iterate_, iterate_progress_off_);

  best_cmd_ = app.add_subcommand(
      "best",
      "restore the best iteration: check out the exact source it benched (from its commit) into solution/<task>/,\n"
      "re-run it, log it, and commit '[final] Restore iter-K'. Refuses when solution/<task>/ has uncommitted\n"
      "changes. Exit status as for iterate.");
  best_cmd_->add_option("-m,--message", best_.hypothesis, "why the best is restored (default: a standard sentence)");
  add_shared(best_cmd_, best_, best_progress_off_);
  best_.restore_best = true;
}

std::optional<int> IterateCli::dispatch() {
  if (iterate_cmd_->parsed()) {
    if (iterate_progress_off_) iterate_.progress = false;
    return iterate_command(iterate_);
  }
  if (best_cmd_->parsed()) {
    if (best_progress_off_) best_.progress = false;
    return iterate_command(best_);
  }
  return std::nullopt;
}

}  // namespace ako::cli
