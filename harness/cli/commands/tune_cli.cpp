#include "cli/commands/tune_cli.hpp"

#include "cli/commands/cache_command.hpp"
#include "cli/commands/number_checks.hpp"
#include "cli/commands/task_words.hpp"

namespace ako::cli {

TuneCli::TuneCli(CLI::App& app) {
  cmd = app.add_subcommand(
      "tune",
      "search the solution's tunable parameters per shape class of the tuned device's config (the GPU's, or the\n"
      "replayed records' device): compile variants in parallel, validate and\n"
      "time them on the GPU (or replay a recorded tuning database without one), record every measurement,\n"
      "pick winners (within 1% is a tie unless a case runs over 2% slower than the fastest's: fewer registers,\n"
      "then smaller params) and report coverage.\n"
      "Exit 0 every class has a winner; 1 some class found no correct variant; 2 usage, spec, build or no GPU.\n"
      "--compile-only: exit 0 every variant compiled and passed the static checks, 1 some did not.\n"
      "With --gpus, one worker per GPU; across hosts, mpirun -np N ako tune --mpi ... (ako-mpi-tune).");
  add_task_positionals(cmd, words);
  cmd->add_option("--strategy", tune.strategy, "exhaustive, random or evolve")
      ->capture_default_str()->check(CLI::IsMember({"exhaustive", "random", "evolve"}));
  cmd->add_option("--budget", tune.budget, "variants to evaluate per class: N, or P% of its valid points (default: no limit)");
  cmd->add_option("--batch", tune.batch, "variants compiled and measured per batch, split over the GPUs (default: 32 for evolve, 128 per GPU otherwise)");
  cmd->add_option("--time", tune.time, "wall budget, e.g. 300, 300s, 5m, 1.5h: no new batch starts after it and no more of the current batch's variants start compiling (those are not recorded); rerun to resume");
  cmd->add_option("--json", tune.json, "also write a summary (schema ako.tune-summary/1) to this file");
  cmd->add_option("--shapes", tune.shapes, "only these shapes, comma separated")->delimiter(',');
  cmd->add_option("--dtypes", tune.dtypes, "only these dtypes, comma separated")->delimiter(',');
  cmd->add_option("--classes", tune.classes, "config: the config's classes, each case to the first whose `when` takes it (a class naming a flag or\n"
                  "an axis takes those cases of a shape; cases no class takes get a class of their own); shape: one class per shape")
      ->capture_default_str()->check(CLI::IsMember({"config", "shape"}));
  cmd->add_option("--where", tune.where,
                  "score only the cases this expression holds for, e.g. \"act == 'gelu_tanh'\" (over a case's dims, flags\n"
                  "and axes, as a class's `when`); with --classes shape each class is named shape-NAME-<expr> and its `when`\n"
                  "adds the expression, so a written config puts it ahead of the classes that keep the shape's other cases.\n"
                  "The other cases of a shape still run (the database keeps whole shapes) but do not score");
  cmd->add_option("--db", tune.db, "tuning database, JSON lines (default: bench/tuning/<task>.jsonl; with --replay: none)");
  cmd->add_option("--replay", tune.replay, "re-run the search on this recorded database instead of the GPU");
  cmd->add_option("--seed", tune.seed, "seed of the strategy and of the random inputs")->capture_default_str();
  cmd->add_flag("--write-config", tune.write_config,
                     "write the winners as the tuned device's config, solution/<task>/configs/device_name=<device>.json\n"
                     "(never default.json or another device's file)");
  cmd->add_option("--device", tune.device,
                       "with --replay: replay the records measured on this device (default: the last record's);\n"
                       "with a GPU it must name the GPU here");
  cmd->add_option("--root", tune.root, "workspace root (default: nearest folder with tasks/ upward from here)");
  cmd->add_option("--arch", tune.arch, "target arch for NVRTC (default: the GPU's)");
  cmd->add_flag("--hot", tune.hot, "keep L2 warm between timed samples (default: flush it)");
  cmd->add_option("--trials", tune.trials, "fresh input sets per case for validation (default: 1; ako run re-validates with the task's)")->check(ako::cli::kPositive);
  cmd->add_option("--max-time", tune.max_time_s, "timing budget per kernel and case, seconds")
      ->capture_default_str()->check(ako::cli::kPositive);
  cmd->add_option("--warmup-ms", tune.warmup_ms, "warm-up wall time per case (its timed kernels warm up together), ms")
      ->capture_default_str()->check(ako::cli::kNonNegative);
  cmd->add_option("--case-timeout", tune.case_timeout_s, "seconds without progress before a case is killed as hung")
      ->capture_default_str()->check(ako::cli::kPositive);
  cmd->add_option("-j,--jobs", tune.jobs, "parallel compile processes, at least 1 (default: number of CPUs)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-cache", tune.no_cache, "compile everything again");
  cmd->add_option("--cache-dir", tune.cache_dir, "kernel cache (default: as for run)");
  add_compile_limit_options(cmd, tune.compile_timeout_s, tune.compile_memory);
  cmd->add_option("--gpus", tune.gpus,
                  "measure on these GPUs, one worker each, batches split over them: all, N (the first N), or\n"
                  "indices I,J,... (one by index: 'I,'); GPUs of different models are refused (default: GPU 0)");
  cmd->add_flag("--compile-only", tune.compile_only,
                "compile every variant and put it through the static checks; run and time nothing, pick no winner\n"
                "(records get verdict \"compiled\"; exit 0 when all passed; no GPU needed: --arch, default sm_90a)");
  cmd->add_flag("--mpi", mpi,
                "run as one rank of an MPI job (mpirun -np N ako tune --mpi ...): hands over to ako-mpi-tune");
  cmd->add_flag("--progress", progress_on, "show the progress line even when stderr is not a terminal");
  cmd->add_flag("--no-progress", progress_off, "never show the progress line");
}

TuneCommandOptions TuneCli::parsed() {
  tune.task = task_from_words(words);
  if (progress_on) tune.progress = true;
  if (progress_off) tune.progress = false;
  return tune;
}

}  // namespace ako::cli
