#include "pipeline/execute_run.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/dtype.hpp"
#include "common/error.hpp"
#include "common/scratch_folder.hpp"
#include "common/utc_time.hpp"
#include "exec/client/sanitizer.hpp"
#include "exec/client/worker_client.hpp"
#include "exec/client/worker_device.hpp"
#include "pipeline/run_phases.hpp"
#include "pipeline/verdict.hpp"
#include "pipeline/workspace.hpp"
#include "task/device_config.hpp"
#include "verify/static/static_check.hpp"

namespace ako::pipeline {

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
  f.where = opt.where;
  for (const auto& d : opt.dtypes) {
    auto t = parse_dtype(d);
    if (!t) throw Error("--dtypes " + d + ": unknown dtype (expected bf16, fp16 or fp32)");
    f.dtypes.push_back(*t);
  }
  return f;
}

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

nlohmann::json options_json(const RunOptions& opt, const PreparedRun& p, uint64_t seed, int trials) {
  return nlohmann::json{{"arch", p.arch},         {"arch_source", p.arch_source},
                        {"device", opt.device},
                        {"hot", opt.hot},         {"l2_flush", opt.hot ? "" : opt.l2_flush}, {"seed", seed},
                        {"trials", trials},       {"shapes", opt.shapes},
                        {"dtypes", opt.dtypes},   {"where", opt.where}, {"params", opt.params},
                        {"solution", p.spec.solution.file.string()},
                        {"max_time_s", opt.max_time_s}, {"target_ci_rel", opt.target_ci_rel},
                        {"case_timeout_s", opt.case_timeout_s},
                        {"timed", !opt.no_time},  {"cupti", !opt.no_cupti},
                        {"size_copy", opt.size_copy}};
}

// The outcome before any work: seed, trials, config notes, and every case in the result,
// skipped until the worker says otherwise, so a run that stops early still lists what it did
// not do.
RunOutcome start_outcome(const RunOptions& opt, const PreparedRun& p, const std::string& started_at) {
  RunOutcome out;
  RunResult& result = out.result;
  result.ako_version = AKO_VERSION;
  result.started_at = started_at;
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
  for (size_t i = 0; i < p.cases.size(); ++i)
    result.cases.push_back(case_result_skeleton(p.cases[i], static_cast<int>(i)));
  return out;
}

void mark_not_run(RunResult& result, const std::string& why) {
  for (auto& c : result.cases) c.reason = "not run: " + why;
}

void record_build(RunOutcome& out, const BuiltKernels& built) {
  RunResult& result = out.result;
  result.builds = built.builds;
  result.static_findings = built.findings;
  result.summary.compiled = built.errors.empty();
  mark_baseline_compile_errors(result.cases, built);
  out.baseline_notes = baseline_notes(result.cases);
  out.cache_notes = built.cache_notes;
}

// A compile error, a refusal by the static checks or no GPU ends the run before the worker;
// returns true when it did (out.stage says which).
bool stopped_before_gpu(RunOutcome& out, const PreparedRun& p, const BuiltKernels& built) {
  RunResult& result = out.result;
  if (!built.errors.empty()) {
    out.stage = RunStage::compile_failed;
    out.compile_errors = built.errors;
    result.error = "compilation failed";
    mark_not_run(result, "compilation failed");
  } else if (verify::any_refused(built.findings)) {
    // Refused before any GPU work: the verdict does not depend on a device.
    out.stage = RunStage::refused;
    refuse_static(result.cases, built.findings);
  } else if (!p.gpu.available) {
    out.stage = RunStage::no_gpu;
    out.no_gpu_reason = p.gpu.reason;
    result.error = "no GPU: " + p.gpu.reason;
    mark_not_run(result, "no GPU");
  } else {
    return false;
  }
  summarize(result);
  result.summary.compiled = out.stage != RunStage::compile_failed;
  return true;
}

exec::WorkerJob run_job(const RunOptions& opt, const PreparedRun& p, const BuiltKernels& built,
                        const RunOutcome& out) {
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
      make_worker_job(p.cases, built, out.trials, out.seed, timing, !opt.no_time, cache_dir);
  job.remeasure_bandwidth = opt.remeasure_bandwidth;
  for (auto& c : job.cases) c.time_size_copy = opt.size_copy && c.time && c.bytes > 0;
  // The worker's per-launch watchdog fires before the parent's silence watchdog.
  job.launch_limit = exec::launch_limit_for_case_timeout(opt.case_timeout_s);
  return job;
}

// The run's scratch folder (worker jobs and logs), marked as this process's while it runs
// (common/scratch_folder.hpp) and removed however the run ends.
struct ScratchDir {
  fs::path path;
  std::optional<ScratchFolder> mark;
  ScratchDir() = default;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// Where this is false no worker is started ahead of the probe (CI machines, containers
// without a GPU): the probe then decides as before.
bool nvidia_device_node_present() { return ::access("/dev/nvidiactl", F_OK) == 0; }

// The run's worker: its client options and, when started ahead of the probe, worker 1 waiting
// for its job. Members are destroyed in reverse order: a waiting worker is killed and reaped
// before its scratch folder is removed.
struct RunWorker {
  ScratchDir scratch;
  exec::ClientOptions copt;
  std::optional<exec::PrestartedWorker> prestarted;
};

// A worker that has not reported its device by then (the driver hung or is very slow) is not
// waited for: ako probes the GPU itself.
constexpr std::chrono::milliseconds kWorkerReportTimeout{30000};

// The worker starts the driver, reports the device, then creates its context (0.13 s in all on
// the H200) while this process waits for that report, loads the task and compiles: it waits for its job
// (exec/client/worker_client.hpp, PrestartedWorker). Only where an NVIDIA driver's device node
// exists; a run that stops before the GPU (compile error, refusal, no GPU) kills it unused.
void start_worker_early(RunWorker& w, double case_timeout_s, PhaseClock& clock) {
  w.copt.case_timeout_s = case_timeout_s;
  w.copt.scratch_dir = scratch_path("run");
  w.scratch.path = w.copt.scratch_dir;
  try {
    w.scratch.mark.emplace(w.scratch.path);
  } catch (const Error&) {
    // Unmarked (never swept); where it cannot be made at all, the worker's start says so.
  }
  if (!nvidia_device_node_present()) return;
  try {
    w.copt.worker_exe = worker_executable();
  } catch (const Error&) {
    return;   // said where the worker is needed (run_on_worker), not before a compile error
  }
  if (std::optional<exec::PrestartedWorker> pre = exec::prestart_worker(w.copt)) w.prestarted.emplace(std::move(*pre));
  if (w.prestarted) clock.worker_spawn = PhaseClock::Clock::now();
}

exec::WorkerRun run_on_worker(const exec::WorkerJob& job, RunWorker& w, const std::vector<task::Case>& cases,
                              ProgressSink& progress, PhaseClock& clock) {
  if (w.copt.worker_exe.empty()) w.copt.worker_exe = worker_executable();
  fs::create_directories(w.copt.scratch_dir);

  const int total = static_cast<int>(cases.size());
  int done = 0;
  exec::ClientCallbacks cb;
  cb.on_device = [&](const DeviceInfo& d) {
    clock.on_device();
    progress.note("device: " + d.name);
  };
  cb.on_begin = [&](int i) {
    clock.on_begin(i);
    progress.update(done, total, cases[i].label(), "validating");
  };
  cb.on_phase = [&](int i, const std::string& phase) {
    clock.on_phase(i, phase);
    progress.update(done, total, cases[i].label(), phase == "validate_baselines" ? "validating baselines" : "timing");
  };
  cb.on_result = [&](const CaseResult& r) {
    clock.on_result(r.index);
    ++done;
  };

  progress.note("starting the worker");
  if (!w.prestarted) clock.worker_spawn = PhaseClock::Clock::now();
  exec::WorkerRun run = exec::run_worker(job, w.copt, cb, std::exchange(w.prestarted, std::nullopt));
  clock.worker_done = PhaseClock::Clock::now();
  progress.clear();
  return run;
}

// Each failing case again, alone and untimed, under every compute-sanitizer tool.
void sanitize_failures(RunResult& result, const exec::WorkerJob& job, const fs::path& worker_exe,
                       double case_timeout_s, const std::vector<task::Case>& cases, ProgressSink& progress) {
  exec::SanitizeOptions so;
  so.worker_exe = worker_exe;
  so.out_dir = scratch_path("sanitize");
  so.launch_limit_s = std::max(120.0, 10 * case_timeout_s);
  // Marked while the tools run; the reports stay (the cases name them), unmarked, never swept.
  std::optional<ScratchFolder> mark;
  for (auto& c : result.cases) {
    if (!exec::worth_sanitizing(c)) continue;
    if (!mark) mark.emplace(so.out_dir);
    progress.note(fmt::format("compute-sanitizer on case {} ({})", c.index, cases[c.index].label()));
    c.sanitizer = exec::sanitize_case(job, c.index, so);
  }
}

}  // namespace

PreparedRun prepare_run(const RunOptions& opt, bool with_checks, const std::function<exec::GpuProbe()>& probe) {
  PreparedRun p;
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
  p.gpu = probe ? probe() : exec::probe_gpu();
  p.gpu_probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_probe).count();
  p.config = choose_config(p.spec, opt, p.gpu);
  p.cases = task::expand_cases(p.spec, make_filter(opt), parse_param_overrides(opt.params), with_checks);
  check_buffer_plans(p.spec, p.cases);
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
  p.compile.timeout_s = opt.compile_timeout_s;
  p.compile.memory_bytes = opt.compile_memory;
  return p;
}

BuiltKernels build_prepared(const PreparedRun& p) {
  BuildOptions bo;
  bo.arch = p.arch;
  bo.compile = p.compile;
  bo.root = p.root;
  bo.allow = p.spec.solution.allow;
  return build_kernels(p.cases, bo);
}

std::vector<std::string> baseline_notes(const std::vector<CaseResult>& cases) {
  std::vector<std::string> notes;
  std::set<std::string> seen;
  for (const auto& c : cases)
    for (const auto& b : c.baselines) {
      const bool absent = b.reason.rfind("not installed", 0) == 0 || b.fault.rfind("compile_", 0) == 0;
      if (absent && seen.insert(b.name).second) notes.push_back(fmt::format("baseline {}: {}", b.name, b.reason));
    }
  return notes;
}

RunOutcome execute_run(const RunOptions& opt, ProgressSink& progress) {
  PhaseClock clock;
  const std::string started_at = utc_now();
  RunWorker worker;
  start_worker_early(worker, opt.case_timeout_s, clock);
  std::string probe_source = "ako";
  auto probe = [&]() {
    if (worker.prestarted)
      if (std::optional<exec::GpuProbe> g = exec::probe_from_worker(*worker.prestarted, kWorkerReportTimeout)) {
        probe_source = "worker";
        return *g;
      }
    return exec::probe_gpu();
  };
  PreparedRun p = prepare_run(opt, /*with_checks=*/!opt.no_checks, probe);
  p.gpu_probe_source = probe_source;
  clock.prepared = PhaseClock::Clock::now();
  RunOutcome out = start_outcome(opt, p, started_at);
  RunResult& result = out.result;

  progress.note(fmt::format("compiling {} for {}", p.spec.name, p.arch));
  const BuiltKernels built = build_prepared(p);
  clock.built = PhaseClock::Clock::now();
  record_build(out, built);
  if (stopped_before_gpu(out, p, built)) return out;

  const exec::WorkerJob job = run_job(opt, p, built, out);
  const bool prestarted = worker.prestarted.has_value();
  const exec::WorkerRun run = run_on_worker(job, worker, p.cases, progress, clock);
  const fs::path& worker_exe = worker.copt.worker_exe;
  if (run.device) result.device = *run.device;
  result.device.nvrtc_version = jit::nvrtc_version_string();  // the worker has no NVRTC
  for (const auto& wr : run.results) {
    if (wr.index < 0 || wr.index >= static_cast<int>(result.cases.size())) continue;
    settle_case(result.cases[wr.index], wr, result.device.copy_bandwidth_gbs);
  }
  if (opt.sanitize) sanitize_failures(result, job, worker_exe, opt.case_timeout_s, p.cases, progress);
  summarize(result);
  result.summary.compiled = true;
  const auto t_end = PhaseClock::Clock::now();
  result.wall_s = seconds_between(clock.start, t_end);
  result.phases = clock.to_json(run.worker_setup_s, t_end);
  result.phases["worker_prestarted"] = prestarted;
  result.phases["gpu_probe_s"] = p.gpu_probe_s;   // part of prepare_s
  result.phases["gpu_probe_source"] = p.gpu_probe_source;
  out.stage = RunStage::ran;
  out.fatal = run.fatal;
  if (!run.fatal.empty()) result.error = run.fatal;
  return out;
}

}  // namespace ako::pipeline
