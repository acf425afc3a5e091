#include "cli/commands/run_command.hpp"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "cli/format/progress.hpp"
#include "cli/format/run_table.hpp"
#include "common/atomic_file.hpp"
#include "verify/static/static_check.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

void print_compile_errors(const pipeline::BuiltKernels& built) {
  for (const auto& e : built.errors) fmt::print(stderr, "{}\n", e);
}

// What the compile said about the kernel cache (not writable, a damaged entry rebuilt).
void print_cache_notes(const std::vector<std::string>& notes) {
  for (const auto& n : notes) fmt::print(stderr, "{}\n", n);
}

// The static checks' findings, one per line, then "STATIC_CHECK: ..." (stdout: it is a verdict).
std::string format_static_findings(const std::vector<StaticFinding>& findings) {
  std::string s;
  int refused = 0;
  for (const auto& f : findings) {
    s += fmt::format("{} {}\n", f.allowed ? "static check (allowed):" : "static check REFUSED:", verify::describe(f));
    refused += !f.allowed;
  }
  s += refused ? fmt::format("STATIC_CHECK: refused ({} finding{}; a task may permit a check with solution.allow)\n",
                             refused, refused == 1 ? "" : "s")
               : fmt::format("STATIC_CHECK: passed{}\n",
                             findings.empty() ? "" : fmt::format(" ({} allowed findings)", findings.size()));
  return s;
}

void write_json(const fs::path& file, const RunResult& r) {
  if (file.empty()) return;
  write_file_atomically(file, to_json(r).dump(2) + "\n");
}

}  // namespace

int compile_command(const RunOptions& opt) {
  const pipeline::PreparedRun p = pipeline::prepare_run(opt, /*with_checks=*/true);
  const auto t0 = std::chrono::steady_clock::now();
  const pipeline::BuiltKernels built = pipeline::build_prepared(p);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunResult r;
  r.builds = built.builds;
  fmt::print("{}", format_builds(r));
  fmt::print("arch {} ({}), {} programs: {} compiled, {} from cache, {:.2f} s\n", p.arch, p.arch_source,
             built.compiled + built.cache_hits + static_cast<int>(built.errors.size()), built.compiled,
             built.cache_hits, s);
  fmt::print("config: {}\n", p.config.message);
  print_cache_notes(built.cache_notes);
  print_compile_errors(built);
  // A baseline is never the run's verdict: its absence or compile error is said, not fatal.
  std::vector<CaseResult> skeletons;
  for (size_t i = 0; i < p.cases.size(); ++i)
    skeletons.push_back(pipeline::case_result_skeleton(p.cases[i], static_cast<int>(i)));
  pipeline::mark_baseline_compile_errors(skeletons, built);
  for (const auto& note : pipeline::baseline_notes(skeletons)) fmt::print("{}\n", note);
  fmt::print("COMPILED: {}\n", built.errors.empty() ? "yes" : "no");
  if (!built.errors.empty()) return kExitUsage;
  fmt::print("{}", format_static_findings(built.findings));
  return verify::any_refused(built.findings) ? kExitIncorrect : kExitOk;
}

int run_exit_code(const pipeline::RunOutcome& o) {
  if (o.stage == pipeline::RunStage::refused) return kExitIncorrect;
  if (o.stage != pipeline::RunStage::ran) return kExitUsage;
  if (!o.fatal.empty() && o.result.summary.correct == 0) return kExitUsage;
  const Summary& s = o.result.summary;
  return (s.incorrect == 0 && s.failed == 0 && s.skipped == 0) ? kExitOk : kExitIncorrect;
}

int run_command(const RunOptions& opt) {
  const Style out_style = style_for(stdout, opt.color);
  const bool show_progress = opt.progress.value_or(is_terminal(stderr));
  Progress progress(stderr, show_progress);

  const pipeline::RunOutcome o = pipeline::execute_run(opt, progress);
  const RunResult& result = o.result;
  if (!o.cache_notes.empty()) {
    progress.clear();
    print_cache_notes(o.cache_notes);
  }
  if (o.stage == pipeline::RunStage::compile_failed) {
    progress.clear();
    for (const auto& e : o.compile_errors) fmt::print(stderr, "{}\n", e);
    fmt::print("{}", format_summary_lines(result));
    write_json(opt.json_out, result);
    return run_exit_code(o);
  }
  if (opt.show_builds) fmt::print("{}\n", format_builds(result));
  if (!result.static_findings.empty() || o.stage == pipeline::RunStage::refused) {
    progress.clear();
    fmt::print("{}\n", format_static_findings(result.static_findings));
  }
  if (o.stage == pipeline::RunStage::refused) {
    fmt::print("config: {}\n", result.config.message);
    fmt::print(stderr, "ako run: the solution was refused by the static checks; nothing ran on the GPU\n");
    fmt::print("{}", format_summary_lines(result));
    write_json(opt.json_out, result);
    return run_exit_code(o);
  }
  if (o.stage == pipeline::RunStage::no_gpu) {
    progress.clear();
    fmt::print(stderr, "ako run: no GPU: {} (everything compiled for {}; nothing was validated or timed)\n",
               o.no_gpu_reason, o.arch);
    fmt::print("config: {}\n", result.config.message);
    fmt::print("{}", format_summary_lines(result));
    write_json(opt.json_out, result);
    return run_exit_code(o);
  }

  fmt::print("{}", format_device_line(result.device));
  fmt::print("task {}: {} cases, seed {}, {} trials each, L2 {}\n", result.task, result.summary.cases, o.seed,
             o.trials, opt.hot ? "hot" : "flushed before every sample");
  fmt::print("config: {}\n", result.config.message);
  for (const auto& note : o.baseline_notes) fmt::print("{}\n", note);
  fmt::print("\n");
  fmt::print("{}\n", format_run_table(result, out_style));
  for (const auto& note : o.config_notes) fmt::print("config: {}\n", note);
  fmt::print("{}", format_reference_checks(result, out_style));
  const std::string failures = format_failures(result, out_style);
  if (!failures.empty()) fmt::print("\n{}", failures);
  for (const auto& c : result.cases)
    for (const auto& sr : c.sanitizer)
      fmt::print("\nsanitize case {} ({}): {}, exit {}, report {}\n{}", c.index, sr.tool,
                 sr.errors < 0 ? std::string("no error summary") : fmt::format("{} error(s)", sr.errors), sr.exit_code,
                 sr.report, sr.excerpt);
  if (!o.fatal.empty()) fmt::print(stderr, "ako run: the worker could not run: {}\n", o.fatal);
  fmt::print("\n{}", format_summary_lines(result));
  fmt::print("wall {:.2f} s\n", result.wall_s);
  write_json(opt.json_out, result);
  return run_exit_code(o);
}

}  // namespace ako::cli
