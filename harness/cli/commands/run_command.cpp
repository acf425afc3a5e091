#include "cli/commands/run_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands/run_plan.hpp"
#include "cli/commands/workspace.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format/progress.hpp"
#include "cli/format/run_table.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/utc_time.hpp"
#include "exec/client/gpu_probe.hpp"
#include "exec/client/sanitizer.hpp"
#include "exec/client/worker_client.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task/spec.hpp"
#include "verify/static/static_check.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

task::ParamOverrides parse_param_overrides(const std::vector<std::string>& items) {
  task::ParamOverrides out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--param " + item + ": expected NAME=VALUE, e.g. --param BLOCK=512");
    try {
      size_t used = 0;
      const std::string value = item.substr(eq + 1);
      out[item.substr(0, eq)] = std::stoll(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      throw Error("--param " + item + ": the value must be an integer");
    }
  }
  return out;
}

task::CaseFilter make_filter(const RunOptions& opt) {
  task::CaseFilter f;
  f.shapes = opt.shapes;
  for (const auto& d : opt.dtypes) {
    auto t = parse_dtype(d);
    if (!t) throw Error("--dtypes " + d + ": unknown dtype (expected bf16, fp16 or fp32)");
    f.dtypes.push_back(*t);
  }
  return f;
}

// Everything both run and compile do before the GPU: workspace, spec, cases, arch.
struct Prepared {
  fs::path root;
  task::TaskSpec spec;
  std::vector<task::Case> cases;
  std::string arch;
  std::string arch_source;  // "--arch", "device", "default"
  exec::GpuProbe gpu;
  double gpu_probe_s = 0;   // the driver's start in this process (cuInit), for RunResult::phases
  ConfigUsed config;        // which per-device config file supplies the params
  jit::CompileOptions compile;
};

// The config of --device, else of the GPU here, else default.json; said in one line.
ConfigUsed choose_config(task::TaskSpec& spec, const RunOptions& opt, const exec::GpuProbe& gpu) {
  if (opt.device.empty())
    return gpu.available ? task::use_device_config(spec, gpu.name, task::kDeviceFromGpu)
                         : task::use_device_config(spec, "", task::kDeviceFromNone);
  ConfigUsed used = task::use_device_config(spec, opt.device, opt.device_source);
  // Another device's config on this GPU is allowed (to compare configs), and said.
  if (gpu.available && opt.device != task::kDefaultEntry &&
      task::device_config_file_name(opt.device) != task::device_config_file_name(gpu.name))
    used.message += "; this GPU is " + gpu.name;
  return used;
}

Prepared prepare(const RunOptions& opt, bool with_checks) {
  Prepared p;
  p.root = find_workspace(opt.root);
  p.spec = task::load_task(p.root, opt.task);
  if (!opt.solution.empty()) {
    const fs::path s = fs::absolute(opt.solution);
    if (!fs::exists(s)) throw Error("--solution " + opt.solution.string() + ": no such file");
    if (!fs::is_regular_file(s))
      throw Error("--solution " + opt.solution.string() + ": not a file (give the .cuh that defines the kernel)");
    p.spec.solution.file = s;
  }
  const auto t_probe = std::chrono::steady_clock::now();
  p.gpu = exec::probe_gpu();
  p.gpu_probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_probe).count();
  p.config = choose_config(p.spec, opt, p.gpu);
  p.cases = task::expand_cases(p.spec, make_filter(opt), parse_param_overrides(opt.params), with_checks);
  if (!opt.arch.empty()) {
    p.arch = opt.arch;
    p.arch_source = "--arch";
  } else if (p.gpu.available) {
    p.arch = exec::arch_for(p.gpu.major, p.gpu.minor);
    p.arch_source = "device";
  } else {
    p.arch = "sm_90a";
    p.arch_source = "default (no GPU; --arch overrides)";
  }
  jit::check_arch(p.arch);  // once, here: else every program would say it
  p.compile.cache_dir = opt.cache_dir.empty() ? jit::default_cache_dir() : opt.cache_dir;
  p.compile.use_cache = !opt.no_cache;
  p.compile.jobs = opt.jobs;
  return p;
}

BuiltKernels build(const Prepared& p) {
  BuildOptions bo;
  bo.arch = p.arch;
  bo.compile = p.compile;
  bo.root = p.root;
  bo.allow = p.spec.solution.allow;
  return build_kernels(p.cases, bo);
}

void print_compile_errors(const BuiltKernels& built) {
  for (const auto& e : built.errors) fmt::print(stderr, "{}\n", e);
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

// Once per baseline: why it did not run anywhere it applies (not installed, not compiled).
std::vector<std::string> baseline_notes(const std::vector<CaseResult>& cases) {
  std::vector<std::string> notes;
  std::set<std::string> seen;
  for (const auto& c : cases)
    for (const auto& b : c.baselines) {
      const bool absent = b.reason.rfind("not installed", 0) == 0 || b.fault == "compile_error";
      if (absent && seen.insert(b.name).second) notes.push_back(fmt::format("baseline {}: {}", b.name, b.reason));
    }
  return notes;
}

nlohmann::json options_json(const RunOptions& opt, const Prepared& p, uint64_t seed, int trials) {
  return nlohmann::json{{"arch", p.arch},         {"arch_source", p.arch_source},
                        {"device", opt.device},
                        {"hot", opt.hot},         {"l2_flush", opt.hot ? "" : opt.l2_flush}, {"seed", seed},
                        {"trials", trials},       {"shapes", opt.shapes},
                        {"dtypes", opt.dtypes},   {"params", opt.params},
                        {"solution", p.spec.solution.file.string()},
                        {"max_time_s", opt.max_time_s}, {"target_ci_rel", opt.target_ci_rel},
                        {"case_timeout_s", opt.case_timeout_s},
                        {"timed", !opt.no_time},  {"cupti", !opt.no_cupti}};
}

void write_json(const fs::path& file, const RunResult& r) {
  if (file.empty()) return;
  write_file_atomically(file, to_json(r).dump(2) + "\n");
}

}  // namespace

int compile_command(const RunOptions& opt) {
  Prepared p = prepare(opt, /*with_checks=*/true);
  const auto t0 = std::chrono::steady_clock::now();
  BuiltKernels built = build(p);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunResult r;
  r.builds = built.builds;
  fmt::print("{}", format_builds(r));
  fmt::print("arch {} ({}), {} programs: {} compiled, {} from cache, {:.2f} s\n", p.arch, p.arch_source,
             built.compiled + built.cache_hits + static_cast<int>(built.errors.size()), built.compiled,
             built.cache_hits, s);
  fmt::print("config: {}\n", p.config.message);
  print_compile_errors(built);
  // A baseline is never the run's verdict: its absence or compile error is said, not fatal.
  std::vector<CaseResult> skeletons;
  for (size_t i = 0; i < p.cases.size(); ++i) skeletons.push_back(case_result_skeleton(p.cases[i], static_cast<int>(i)));
  mark_baseline_compile_errors(skeletons, built);
  for (const auto& note : baseline_notes(skeletons)) fmt::print("{}\n", note);
  fmt::print("COMPILED: {}\n", built.errors.empty() ? "yes" : "no");
  if (!built.errors.empty()) return kExitUsage;
  fmt::print("{}", format_static_findings(built.findings));
  return verify::any_refused(built.findings) ? kExitIncorrect : kExitOk;
}

namespace {

using SteadyClock = std::chrono::steady_clock;

// The run's scratch folder (worker jobs and logs), removed however the run ends.
struct ScratchDir {
  fs::path path;
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Where this is false no worker is started ahead of the probe (CI machines, containers
// without a GPU): the probe then decides as before.
bool nvidia_device_node_present() { return ::access("/dev/nvidiactl", F_OK) == 0; }

double seconds_between(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Event times of one run, for RunResult::phases (where the wall time went).
struct PhaseClock {
  SteadyClock::time_point start = SteadyClock::now(), prepared, built, worker_spawn, device, first_begin, last_result,
                          worker_done;
  struct CaseTimes {
    int index = 0;
    SteadyClock::time_point begin, time, result;
    bool timed = false;
  };
  std::vector<CaseTimes> cases;

  nlohmann::json to_json(const std::map<std::string, double>& worker_setup_s, SteadyClock::time_point end) const {
    using nlohmann::json;
    json j{{"prepare_s", seconds_between(start, prepared)}, {"compile_s", seconds_between(prepared, built)},
           {"finish_s", seconds_between(worker_done, end)}};
    if (device != SteadyClock::time_point{}) {
      j["worker_start_s"] = seconds_between(worker_spawn, device);
      j["worker_setup_s"] = worker_setup_s;
    }
    if (!cases.empty()) {
      j["worker_to_first_case_s"] = seconds_between(device, first_begin);
      j["cases_s"] = seconds_between(first_begin, last_result);
      j["worker_exit_s"] = seconds_between(last_result, worker_done);
      double validate = 0, time = 0;
      json per_case = json::array();
      for (const CaseTimes& c : cases) {
        const SteadyClock::time_point timed_from = c.timed ? c.time : c.result;
        const double v = seconds_between(c.begin, timed_from), t = seconds_between(timed_from, c.result);
        validate += v;
        time += t;
        per_case.push_back(json{{"index", c.index}, {"validate_s", v}, {"time_s", t}});
      }
      j["validate_s"] = validate;
      j["time_s"] = time;
      j["per_case"] = per_case;
    }
    return j;
  }
};

}  // namespace

RunOutcome execute_run(const RunOptions& opt, Progress& progress) {
  PhaseClock clock;
  const auto t0 = clock.start;
  RunOutcome out;
  RunResult& result = out.result;
  result.ako_version = AKO_VERSION;
  result.task = opt.task;
  result.started_at = utc_now();

  exec::ClientOptions copt;
  copt.case_timeout_s = opt.case_timeout_s;
  copt.scratch_dir = fs::temp_directory_path() / fmt::format("ako-run-{}", ::getpid());
  const ScratchDir scratch{copt.scratch_dir};
  // The worker starts the driver and its context (0.13 s on the H200) while this process
  // probes the GPU (its own cuInit, 0.11 s), loads the task and compiles: it waits for its job
  // (worker_client.hpp, PrestartedWorker). Only where an NVIDIA driver's device node exists;
  // a run that stops before the GPU (compile error, refusal, no GPU) kills it unused.
  const bool early = nvidia_device_node_present();
  if (early) copt.worker_exe = worker_executable();
  std::optional<exec::PrestartedWorker> prestarted =
      early ? exec::prestart_worker(copt) : std::optional<exec::PrestartedWorker>();
  if (prestarted) clock.worker_spawn = SteadyClock::now();

  Prepared p = prepare(opt, /*with_checks=*/!opt.no_checks);
  clock.prepared = SteadyClock::now();
  out.seed = opt.seed ? *opt.seed : std::random_device{}() * 4294967296ull + std::random_device{}();
  out.trials = opt.trials > 0 ? opt.trials : p.spec.trials;
  out.arch = p.arch;
  for (const auto& c : p.cases)
    if (!c.config_note.empty() &&
        std::find(out.config_notes.begin(), out.config_notes.end(), c.config_note) == out.config_notes.end())
      out.config_notes.push_back(c.config_note);
  result.task = p.spec.name;
  result.options = options_json(opt, p, out.seed, out.trials);
  result.config = p.config;
  result.device.arch = p.arch;
  // Every case is in the result from the start, skipped until the worker says otherwise, so
  // a run that stops early still lists what it did not do.
  for (size_t i = 0; i < p.cases.size(); ++i)
    result.cases.push_back(case_result_skeleton(p.cases[i], static_cast<int>(i)));
  auto mark_not_run = [&](const std::string& why) {
    for (auto& c : result.cases) c.reason = "not run: " + why;
  };

  progress.note(fmt::format("compiling {} for {}", p.spec.name, p.arch));
  BuiltKernels built = build(p);
  clock.built = SteadyClock::now();
  result.builds = built.builds;
  result.static_findings = built.findings;
  result.summary.compiled = built.errors.empty();
  mark_baseline_compile_errors(result.cases, built);
  out.baseline_notes = baseline_notes(result.cases);
  if (!built.errors.empty()) {
    out.stage = RunStage::compile_failed;
    out.compile_errors = built.errors;
    result.error = "compilation failed";
    mark_not_run("compilation failed");
    summarize(result);
    result.summary.compiled = false;
    return out;
  }

  if (verify::any_refused(built.findings)) {
    // Refused before any GPU work: the verdict does not depend on a device.
    out.stage = RunStage::refused;
    refuse_static(result.cases, built.findings);
    summarize(result);
    result.summary.compiled = true;
    return out;
  }

  if (!p.gpu.available) {
    out.stage = RunStage::no_gpu;
    out.no_gpu_reason = p.gpu.reason;
    result.error = "no GPU: " + p.gpu.reason;
    mark_not_run("no GPU");
    summarize(result);
    result.summary.compiled = true;
    return out;
  }

  exec::TimingOptions timing;
  timing.hot = opt.hot;
  timing.l2_flush = opt.l2_flush;
  timing.use_cupti = !opt.no_cupti;
  timing.max_time_s = opt.max_time_s;
  timing.target_ci_rel = opt.target_ci_rel;
  // The clock check (measure/gpu/timer.hpp) waits for the clocks to ramp, so the warm-up only
  // has to load the module and touch the buffers: a few launches, 5 ms, not 20 per case.
  timing.warmup_ms = 5.0;
  const fs::path cache_dir = p.compile.cache_dir.empty() ? jit::default_cache_dir() : p.compile.cache_dir;
  exec::WorkerJob job =
      make_worker_job(p.cases, built, p.spec.op, out.trials, out.seed, timing, !opt.no_time, cache_dir);
  job.remeasure_bandwidth = opt.remeasure_bandwidth;
  // The worker's per-launch watchdog fires before the parent's silence watchdog.
  job.launch_limit = exec::launch_limit_for_case_timeout(opt.case_timeout_s);

  if (copt.worker_exe.empty()) copt.worker_exe = worker_executable();
  fs::create_directories(copt.scratch_dir);

  const int total = static_cast<int>(p.cases.size());
  int done = 0;
  exec::ClientCallbacks cb;
  cb.on_device = [&](const DeviceInfo& d) {
    clock.device = SteadyClock::now();
    progress.note("device: " + d.name);
  };
  cb.on_begin = [&](int i) {
    const auto now = SteadyClock::now();
    if (clock.cases.empty()) clock.first_begin = now;
    clock.cases.push_back({i, now, now, now, false});
    progress.update(done, total, p.cases[i].label(), "validating");
  };
  cb.on_phase = [&](int i, const std::string& phase) {
    if (phase == "time" && !clock.cases.empty() && clock.cases.back().index == i) {
      clock.cases.back().time = SteadyClock::now();
      clock.cases.back().timed = true;
    }
    progress.update(done, total, p.cases[i].label(), phase == "validate_baselines" ? "validating baselines" : "timing");
  };
  cb.on_result = [&](const CaseResult& r) {
    const auto now = SteadyClock::now();
    if (!clock.cases.empty() && clock.cases.back().index == r.index) {
      clock.cases.back().result = now;
      clock.last_result = now;
    }
    ++done;
  };

  progress.note("starting the worker");
  const bool was_prestarted = prestarted.has_value();
  if (!was_prestarted) clock.worker_spawn = SteadyClock::now();
  exec::WorkerRun run = exec::run_worker(job, copt, cb, std::move(prestarted));
  clock.worker_done = SteadyClock::now();
  progress.clear();

  if (run.device) result.device = *run.device;
  result.device.nvrtc_version = jit::nvrtc_version_string();  // the worker has no NVRTC
  for (const auto& wr : run.results) {
    if (wr.index < 0 || wr.index >= total) continue;
    CaseResult& c = result.cases[wr.index];
    exec::merge_worker_fields(c, wr);
    derive_rates(c, result.device.copy_bandwidth_gbs);
    refuse_implausible(c, result.device.copy_bandwidth_gbs);
  }
  if (opt.sanitize) {
    // Each failing case again, alone and untimed, under every compute-sanitizer tool.
    exec::SanitizeOptions so;
    so.worker_exe = copt.worker_exe;
    so.out_dir = fs::temp_directory_path() / fmt::format("ako-sanitize-{}", ::getpid());
    so.launch_limit_s = std::max(120.0, 10 * opt.case_timeout_s);
    for (auto& c : result.cases) {
      if (!exec::worth_sanitizing(c)) continue;
      progress.note(fmt::format("compute-sanitizer on case {} ({})", c.index, p.cases[c.index].label()));
      c.sanitizer = exec::sanitize_case(job, c.index, so);
    }
  }
  summarize(result);
  result.summary.compiled = true;
  const auto t_end = SteadyClock::now();
  result.wall_s = seconds_between(t0, t_end);
  result.phases = clock.to_json(run.worker_setup_s, t_end);
  result.phases["worker_prestarted"] = was_prestarted;
  result.phases["gpu_probe_s"] = p.gpu_probe_s;   // part of prepare_s
  out.stage = RunStage::ran;
  out.fatal = run.fatal;
  if (!run.fatal.empty()) result.error = run.fatal;
  return out;
}

int run_exit_code(const RunOutcome& o) {
  if (o.stage == RunStage::refused) return kExitIncorrect;
  if (o.stage != RunStage::ran) return kExitUsage;
  if (!o.fatal.empty() && o.result.summary.correct == 0) return kExitUsage;
  const Summary& s = o.result.summary;
  return (s.incorrect == 0 && s.failed == 0 && s.skipped == 0) ? kExitOk : kExitIncorrect;
}

int run_command(const RunOptions& opt) {
  const Style out_style = style_for(stdout, opt.color);
  const bool show_progress = opt.progress.value_or(is_terminal(stderr));
  Progress progress(stderr, show_progress);

  const RunOutcome o = execute_run(opt, progress);
  const RunResult& result = o.result;
  if (o.stage == RunStage::compile_failed) {
    progress.clear();
    for (const auto& e : o.compile_errors) fmt::print(stderr, "{}\n", e);
    fmt::print("{}", format_summary_lines(result));
    write_json(opt.json_out, result);
    return run_exit_code(o);
  }
  if (opt.show_builds) fmt::print("{}\n", format_builds(result));
  if (!result.static_findings.empty() || o.stage == RunStage::refused) {
    progress.clear();
    fmt::print("{}\n", format_static_findings(result.static_findings));
  }
  if (o.stage == RunStage::refused) {
    fmt::print("config: {}\n", result.config.message);
    fmt::print(stderr, "ako run: the solution was refused by the static checks; nothing ran on the GPU\n");
    fmt::print("{}", format_summary_lines(result));
    write_json(opt.json_out, result);
    return run_exit_code(o);
  }
  if (o.stage == RunStage::no_gpu) {
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
