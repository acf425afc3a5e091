// ako: kernel autotuning and optimization harness. Command wiring only; each command lives
// in cli/commands/.
#include <csignal>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands/cache_command.hpp"
#include "cli/commands/doctor_command.hpp"
#include "cli/commands/gate_command.hpp"
#include "cli/commands/iterate_cli.hpp"
#include "cli/commands/mpi_handover.hpp"
#include "cli/commands/number_checks.hpp"
#include "cli/commands/port_command.hpp"
#include "cli/commands/report_command.hpp"
#include "cli/commands/run_command.hpp"
#include "cli/commands/task_words.hpp"
#include "cli/commands/tune_cli.hpp"
#include "cli/commands/validate_command.hpp"
#include "cli/exit_codes.hpp"
#include "common/error.hpp"
#include "common/scratch_folder.hpp"
#include "exec/client/child_groups.hpp"
#include "exec/protocol/ancestor_watch.hpp"
#include "jit/compiler.hpp"
#include "jit/toolkit.hpp"

namespace {

using ako::cli::add_task_positionals;
using ako::cli::RunOptions;
using ako::cli::task_from_words;

// CLI11 writes a positional of one or two words as "task(1x)" in the usage line; ako's reads
// as it is typed.
class UsageFormatter : public CLI::Formatter {
 public:
  std::string make_option_usage(const CLI::Option* opt) const override {
    if (opt->get_name() == "task" && opt->get_expected_max() == 2) return "[task] NAME";
    return CLI::Formatter::make_option_usage(opt);
  }
};

void add_common_build_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--root", o.root, "workspace root (default: nearest folder with tasks/ upward from here)");
  cmd->add_option("--arch", o.arch, "target arch for NVRTC, e.g. sm_90a (default: the GPU's; sm_90a without one)");
  cmd->add_option("--device", o.device,
                  "use this device's config, e.g. \"NVIDIA H100 80GB HBM3\" (solution/<task>/configs/device_name=...json;\n"
                  "\"default\": default.json). Default: the GPU's own, else default.json; a device without a file\n"
                  "falls back to default.json, and the run says so");
  cmd->add_option("--shapes", o.shapes, "only these shapes (names from the task), comma separated")->delimiter(',');
  cmd->add_option("--dtypes", o.dtypes, "only these dtypes (bf16, fp16, fp32), comma separated")->delimiter(',');
  cmd->add_option("--where", o.where,
                  "only the cases this expression holds for, e.g. \"affine && mod_dtype == 'fp32'\" (over a case's dims,\n"
                  "flags, axes and dtype, as a config class's `when`); the constraints are checked on those cases only");
  cmd->add_option("--param", o.params, "override a solution parameter for every case, NAME=VALUE (repeatable)");
  cmd->add_option("--solution", o.solution, "use this .cuh instead of the task's solution file");
  cmd->add_option("-j,--jobs", o.jobs, "parallel compile processes, at least 1 (default: number of CPUs)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-cache", o.no_cache, "compile everything again (the cache is neither read nor written)");
  cmd->add_option("--cache-dir", o.cache_dir, "kernel cache (default: $AKO_CACHE_DIR, $XDG_CACHE_HOME/ako or ~/.cache/ako)");
  ako::cli::add_compile_limit_options(cmd, o.compile_timeout_s, o.compile_memory);
}

// `ako version`: what builds the kernels, and where they are cached.
int version_command() {
  std::string headers;
  try {
    headers = ako::jit::headers_version(ako::jit::resolve_toolkit({}));
  } catch (const ako::Error& e) {
    headers = std::string("not found: ") + e.what();
  }
  fmt::print("ako {}\nNVRTC {}\nCUDA headers {}\ncache {}\n", AKO_VERSION, ako::jit::nvrtc_version_string(), headers,
             ako::jit::default_cache_dir().string());
  return ako::cli::kExitOk;
}

ako::cli::ColorMode color_mode(const std::string& color) {
  return color == "always" ? ako::cli::ColorMode::always
         : color == "never" ? ako::cli::ColorMode::never
                            : ako::cli::ColorMode::automatic;
}

// One subcommand each: its options (CLI11 writes into them while parsing) and what it runs.
struct RunCli {
  RunOptions run;
  std::vector<std::string> words;
  std::string color = "auto";
  bool progress_on = false, progress_off = false;
  CLI::App* cmd = nullptr;

  explicit RunCli(CLI::App& app) {
    cmd = app.add_subcommand("run", "validate and time a task's solution against its reference on the GPU");
    add_task_positionals(cmd, words);
    add_common_build_options(cmd, run);
    cmd->add_option("--json", run.json_out, "write the result as JSON (schema ako.run/1) to this file");
    cmd->add_flag("--hot", run.hot, "keep L2 warm between timed samples (default: flush it)");
    cmd->add_option("--l2-flush", run.l2_flush,
                        "how the L2 is flushed before a cold sample: memset (NVBench's way: the L2 is left full of dirty\n"
                        "lines, which the timed kernel's misses write back, as a kernel pays for its predecessors'\n"
                        "outputs inside a model) or read (read a 2x L2 buffer: the L2 is left clean and the kernel's\n"
                        "last outputs may still sit in L2 when it ends, so large shapes can pass 100% of copy)")
        ->check(CLI::IsMember({"memset", "read"}))
        ->default_str("memset");
    cmd->add_option("--seed", run.seed, "seed for the random inputs (default: random, printed and recorded)");
    cmd->add_option("--trials", run.trials, "fresh input sets per case (default: the task's)")->check(ako::cli::kPositive);
    cmd->add_option("--case-timeout", run.case_timeout_s, "seconds without progress before a case is killed as hung")
        ->capture_default_str()->check(ako::cli::kPositive);
    cmd->add_option("--max-time", run.max_time_s, "timing budget per kernel and case, seconds")
        ->capture_default_str()->check(ako::cli::kPositive);
    cmd->add_option("--target-ci", run.target_ci_rel,
                        "stop sampling a kernel once the 95% confidence half-width of its IQM (interquartile mean, the\n"
                        "time ako reports) is under this fraction of the IQM; or on --max-time. The samples come in two pooled\n"
                        "passes: the first stops at this fraction x sqrt(2), after at least 20 samples and either 32 of them or\n"
                        "15 ms, the second takes as many again; passes that disagree get up to two more (CUPTI timer)")
        ->capture_default_str()->check(CLI::Range(1e-4, 0.5));
    cmd->add_flag("--no-time", run.no_time, "validate only");
    cmd->add_flag("--size-copy", run.size_copy,
                  "also time a device-to-device copy (cuMemcpyDtoDAsync) of half each case's bytes (to whole 64 KiB),\n"
                  "so about the same bytes read and written, interleaved with the kernels under the same L2 flush;\n"
                  "the table adds 'copy us' and '%size' (the solution's rate as a percentage of the copy's): how\n"
                  "near the solution is to a plain copy of its own traffic at its own size, where %copy compares\n"
                  "it with a 1 GiB copy")
        ->excludes("--no-time");
    cmd->add_flag("--no-cupti", run.no_cupti, "time with CUDA events instead of CUPTI (e.g. under ncu)");
    cmd->add_flag("--no-checks", run.no_checks, "skip the reference-vs-oracle checks on small shapes (check_shapes)");
    cmd->add_flag("--sanitize", run.sanitize,
                      "re-run each failing case under compute-sanitizer (memcheck, racecheck, initcheck) and attach the reports");
    cmd->add_flag("--remeasure-bandwidth", run.remeasure_bandwidth, "measure the copy bandwidth again instead of using the cached value");
    cmd->add_flag("--builds", run.show_builds, "print the registers/spills table of every compiled kernel");
    cmd->add_option("--color", color, "colour the verdicts: auto, always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    cmd->add_flag("--progress", progress_on, "show the progress line even when stderr is not a terminal");
    cmd->add_flag("--no-progress", progress_off, "never show the progress line");

  }
  int dispatch() {
    run.task = task_from_words(words);
    run.color = color_mode(color);
    if (progress_on) run.progress = true;
    if (progress_off) run.progress = false;
    return ako::cli::run_command(run);
  }
};

struct CompileCli {
  RunOptions comp;
  std::vector<std::string> words;
  CLI::App* cmd = nullptr;

  explicit CompileCli(CLI::App& app) {
    cmd = app.add_subcommand("compile", "compile every kernel of a task with NVRTC and report registers and spills (no GPU needed)");
    add_task_positionals(cmd, words);
    add_common_build_options(cmd, comp);

  }
  int dispatch() {
    comp.task = task_from_words(words);
    return ako::cli::compile_command(comp);
  }
};

struct GateCli {
  ako::cli::GateCommandOptions gate;
  bool progress_off = false;
  std::string color = "auto";
  CLI::App* cmd = nullptr;

  explicit GateCli(CLI::App& app) {
    cmd = app.add_subcommand(
        "gate",
        "CI regression gate: run the tasks and compare with the GPU's own entry of a committed baseline (one entry\n"
        "per device; noise-aware; a GPU with no entry is said and its correctness still gated); without a GPU,\n"
        "compile every kernel of every entry (its arch, its device's config) and check register/spill/shared budgets.\n"
        "Exit 0 everything that ran passed; 1 a correctness failure, a real slowdown or a budget exceeded;\n"
        "2 usage, spec, baseline or build error.");
    cmd->add_option("--baseline", gate.baseline,
                         "the baseline file (schema ako.baseline/2; /1 is read as one entry), e.g. bench/baseline.json")
        ->required();
    cmd->add_option("--tasks", gate.tasks, "only these tasks, comma separated (default: every task)")->delimiter(',');
    cmd->add_option("--shapes", gate.shapes, "only these shapes, comma separated")->delimiter(',');
    cmd->add_option("--dtypes", gate.dtypes, "only these dtypes, comma separated")->delimiter(',');
    cmd->add_option("--threshold", gate.threshold_pct,
                         "slowdown in percent that fails when it is also beyond the noise (default: the baseline's, 3)")
        ->check(ako::cli::kNonNegative);
    cmd->add_option("--min-change-us", gate.min_change_us,
                         "a change of at most this many microseconds is within the threshold whatever its percentage\n"
                         "(two H200s ran the same 2 us kernel 60-70 ns apart)")
        ->capture_default_str()->check(ako::cli::kNonNegative);
    cmd->add_option("--summary", gate.summary_out, "write a markdown summary for the CI log to this file");
    cmd->add_option("--json", gate.json_out, "write the report as JSON (schema ako.gate/1) to this file");
    cmd->add_flag("--update-baseline", gate.update_baseline,
                       "rewrite this device's entry from this run (other entries kept), refusing when any check fails\n"
                       "(without a GPU: every checked entry's budgets only)");
    cmd->add_option("--arch", gate.arch, "without a GPU: compile for this arch (default: each entry's)");
    cmd->add_option("--device", gate.device,
                         "without a GPU: check only this device's entry, with its config (an entry that does not exist\n"
                         "yet is said; --update-baseline creates it with budgets only); with a GPU: must be the GPU's");
    cmd->add_option("--root", gate.root, "workspace root (default: nearest folder with tasks/ upward from here)");
    cmd->add_option("--max-time", gate.max_time_s, "timing budget per kernel and case, seconds")
        ->capture_default_str()->check(ako::cli::kPositive);
    cmd->add_option("--case-timeout", gate.case_timeout_s, "seconds without progress before a case is killed as hung")
        ->capture_default_str()->check(ako::cli::kPositive);
    cmd->add_option("-j,--jobs", gate.jobs, "parallel compile processes, at least 1 (default: number of CPUs)")
        ->check(CLI::Range(1, 4096));
    cmd->add_flag("--no-cache", gate.no_cache, "compile everything again");
    cmd->add_option("--cache-dir", gate.cache_dir, "kernel cache (default: as for run)");
    cmd->add_flag("--no-progress", progress_off, "never show the progress line");
    cmd->add_option("--color", color, "colour the verdict line: auto, always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}));

  }
  int dispatch() {
    if (progress_off) gate.progress = false;
    gate.color = color_mode(color);
    return ako::cli::gate_command(gate);
  }
};

struct DoctorCli {
  ako::cli::DoctorOptions doctor;
  CLI::App* cmd = nullptr;

  explicit DoctorCli(CLI::App& app) {
    cmd = app.add_subcommand(
        "doctor",
        "repository hygiene, as the AKO preflight demands (libgit2): an 'upstream' remote (created from\n"
        "--upstream-url, ako.upstreamUrl or origin's URL when missing), fetched; the default branch\n"
        "(--default-branch, ako.defaultBranch, upstream/HEAD, else main); a clean worktree (untracked files\n"
        "count, ignored ones do not); HEAD equal to upstream/<default>. Each problem is printed with its fix.\n"
        "Exit 0 clean; 1 refused (hygiene problems); 2 usage or environment error (not a repository, fetch failed).");
    cmd->add_option("--root", doctor.root, "the repository, or a folder inside it (default: the current directory)");
    cmd->add_option("--upstream-url", doctor.upstream_url, "URL for the upstream remote when it is missing");
    cmd->add_option("--default-branch", doctor.default_branch, "the default branch (overrides config and upstream/HEAD)");
    cmd->add_flag("--ff,--fix", doctor.fast_forward, "fast-forward the default branch when it is only behind upstream");

  }
  int dispatch() { return ako::cli::doctor_command(doctor); }
};

struct ReportCli {
  ako::cli::ReportOptions report;
  std::vector<std::string> words;
  CLI::App* cmd = nullptr;

  explicit ReportCli(CLI::App& app) {
    cmd = app.add_subcommand(
        "report",
        "write report.html (one self-contained page: inline SVG, no script, nothing fetched when opened) and\n"
        "report.md (the PR body's tables in SGLang's format) from what ako recorded: per case, bars of the\n"
        "reference, the solution and each baseline in % of the copy bandwidth with the 100% line (faceted by dtype\n"
        "and variant); the iteration history from trajectory/<task>/ (the task's total and the hottest cases per\n"
        "iteration, status markers, where the stall rule fired or reset, the hypotheses on hover); the tuning\n"
        "landscape from the tuning database (every variant of each class against each parameter, the config's\n"
        "chosen point marked, wrong and refused variants counted); the ncu before/after table; device, commit,\n"
        "command and date; with --validate, the model-level check of `ako validate`. A missing optional input is\n"
        "listed with the command that makes it.\n"
        "Exit 0 written; 2 usage or input error (unknown task, no run result, --run or --tune file missing).");
    add_task_positionals(cmd, words);
    cmd->add_option("--run", report.run,
                    "an `ako run --json` result (schema ako.run/1) for the per-case bars and the micro-benchmark table\n"
                    "(default: trajectory/<task>/iter-<best>/result.json)");
    cmd->add_option("--tune", report.tune,
                    "a tuning database (ako tune's JSON lines) for the landscape (default: bench/tuning/<task>.jsonl\n"
                    "when it exists); its last device's records, or the run's device when it has records there");
    cmd->add_option("--out", report.out, "folder for report.html and report.md (default: report/<task>/ in the workspace)");
    cmd->add_option("--validate", report.validate,
                    "an `ako validate --json` result (schema ako.validate/1; repeatable): adds the model-level section\n"
                    "(step per backend, family verdicts, sites left to the engine)");
    cmd->add_option("--root", report.root, "workspace root (default: nearest folder with tasks/ upward from here)");
  }
  int dispatch() {
    report.task = task_from_words(words);
    return ako::cli::report_command(report);
  }
};

}  // namespace

int main(int argc, char** argv) {
  // An ako started under a tool by another ako (`ako iterate --ncu`) ends with that ako, and
  // everything this one starts is told to end with it: exec/protocol/ancestor_watch.hpp.
  ako::exec::exit_with_ancestor("ako", 128 + SIGKILL, true);
  // A stopped ako takes its workers (and whatever they started) with it: exec/client/child_groups.hpp.
  ako::exec::kill_children_on_termination_signals();
  // Across hosts, tune runs in ako-mpi-tune (the only binary linking libmpi).
  if (ako::cli::wants_mpi_tune(argc, argv)) return ako::cli::hand_over_to_mpi_tune(argc, argv);
  CLI::App app{
      "ako: JIT-build CUDA kernel variants, prove them correct against a reference over real diffusion\n"
      "shapes, time them with CUPTI, and report.\n\n"
      "Exit status: 0 every case correct; 1 some case incorrect or a candidate failed (crash, hang);\n"
      "2 usage, spec, build or environment error (e.g. no GPU for run).",
      "ako"};
  app.formatter(std::make_shared<UsageFormatter>());  // before the subcommands: they copy it
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ako ") + AKO_VERSION);

  RunCli run(app);
  CompileCli compile(app);
  GateCli gate(app);
  ako::cli::TuneCli tune(app);
  DoctorCli doctor(app);
  ako::cli::IterateCli iterate_cli(app);  // ako iterate, ako best
  ako::cli::PortCli port_cli(app);  // ako mirror, ako port
  ako::cli::CacheCli cache_cli(app);  // ako cache stats, ako cache prune
  ReportCli report(app);
  ako::cli::ValidateCli validate_cli(app);  // ako validate

  app.add_subcommand("version", "print the versions of ako, NVRTC and the CUDA headers in use, and the kernel cache folder");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return e.get_exit_code() == 0 ? code : ako::cli::kExitUsage;
  }

  try {
    // The scratch folders a killed ako left under $TMPDIR (common/scratch_folder.hpp), before
    // the commands that make them.
    if (run.cmd->parsed() || gate.cmd->parsed() || tune.cmd->parsed() || iterate_cli.makes_scratch())
      ako::sweep_orphaned_scratch_and_say();
    if (run.cmd->parsed()) return run.dispatch();
    if (doctor.cmd->parsed()) return doctor.dispatch();
    if (const auto code = iterate_cli.dispatch()) return *code;
    if (const auto code = port_cli.dispatch()) return *code;
    if (const auto code = cache_cli.dispatch()) return *code;
    if (gate.cmd->parsed()) return gate.dispatch();
    if (tune.cmd->parsed()) return tune.dispatch();
    if (compile.cmd->parsed()) return compile.dispatch();
    if (report.cmd->parsed()) return report.dispatch();
    if (const auto code = validate_cli.dispatch()) return *code;
    return version_command();
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "ako: {}\nRun with --help for usage.\n", e.what());
    return ako::cli::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ako: {}\n", e.what());
    return ako::cli::kExitUsage;
  }
}
