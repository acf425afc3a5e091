#include "cli/commands/tune_measurer.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/utc_time.hpp"
#include "exec/client/gpu_probe.hpp"
#include "exec/client/gpu_selection.hpp"
#include "jit/compiler.hpp"
#include "jit/include_scan.hpp"
#include "jit/sha256.hpp"
#include "task/device_config.hpp"
#include "task/json_field.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

// The records to replay: the file's last context of the task, or of --device's records.
search::DbContext replay_context(const TuneCommandOptions& opt, const std::string& task) {
  const auto last = search::TuningDb::last_context(opt.replay, task, opt.device);
  if (last) return *last;
  if (opt.device.empty()) throw Error(fmt::format("{}: no tuning records of task {}", opt.replay.string(), task));
  const auto devices = search::TuningDb::recorded_devices(opt.replay, task);
  throw Error(fmt::format("--device {}: {} has no records of task {} measured on it (devices there: {})", opt.device,
                          opt.replay.string(), task, devices.empty() ? std::string("none") : task::join_names(devices)));
}

// The records' context on the GPU here (dtypes are added by gpu_options); `gpu` is the
// selected GPUs' model (a --gpus set has one).
search::DbContext gpu_context(const TuneCommandOptions& opt, const task::TaskSpec& spec, const exec::GpuProbe& gpu) {
  search::DbContext ctx;
  ctx.task = spec.name;
  ctx.source_hash = source_hash((spec.root / spec.solution.file).lexically_normal());
  ctx.device = gpu.name;
  ctx.driver = gpu.driver_version;
  ctx.nvrtc = jit::nvrtc_version_string();
  ctx.arch = opt.arch.empty() ? exec::arch_for(gpu.major, gpu.minor) : opt.arch;
  jit::check_arch(ctx.arch);
  ctx.l2 = opt.hot ? "hot" : "cold";
  // Every variant goes through the static checks under the task's solution.allow (as in
  // `ako run`); the allow list is part of the context, so records made under another list
  // (or before tune checked variants) are never reused.
  std::vector<std::string> allow = spec.solution.allow;
  std::sort(allow.begin(), allow.end());
  ctx.allow = allow;
  // Times are IQMs now: records of medians (made before the IQM) are not reused.
  ctx.centre = search::kCentreIqm;
  return ctx;
}

pipeline::GpuEvaluatorOptions gpu_options(const TuneCommandOptions& opt, const task::TaskSpec& spec,
                                          search::DbContext& ctx) {
  pipeline::GpuEvaluatorOptions go;
  for (DType t : spec.dtypes)
    if (opt.dtypes.empty() || std::count(opt.dtypes.begin(), opt.dtypes.end(), std::string(dtype_name(t)))) {
      ctx.dtypes.emplace_back(dtype_name(t));
      go.dtypes.push_back(t);
    }
  for (const auto& d : opt.dtypes)
    if (!parse_dtype(d) || !std::count(spec.dtypes.begin(), spec.dtypes.end(), *parse_dtype(d)))
      throw Error("--dtypes " + d + ": task " + spec.name + " has no such dtype");
  go.trials = opt.trials > 0 ? opt.trials : 1;
  go.hot = opt.hot;
  go.max_time_s = opt.max_time_s;
  go.warmup_ms = opt.warmup_ms;
  go.case_timeout_s = opt.case_timeout_s;
  go.seed = opt.seed;
  go.build.arch = ctx.arch;
  go.build.compile.cache_dir = opt.cache_dir.empty() ? jit::default_cache_dir() : opt.cache_dir;
  go.build.compile.use_cache = !opt.no_cache;
  go.build.compile.jobs = opt.jobs;
  go.build.compile.timeout_s = opt.compile_timeout_s;
  go.build.compile.memory_bytes = opt.compile_memory;
  go.build.root = spec.root;
  go.build.allow = *ctx.allow;
  go.compile_only = opt.compile_only;
  return go;
}

// --compile-only on a machine without a GPU: a context of its own (device "none", driver 0),
// so its records never meet a GPU's.
exec::GpuProbe no_gpu_for_compile_only(const TuneCommandOptions& opt) {
  exec::GpuProbe p;
  p.available = true;
  p.name = "none";
  p.major = 9;
  p.minor = 0;
  if (opt.arch.empty()) fmt::print("ako tune --compile-only: no GPU here; compiling for sm_90a (--arch to change)\n");
  p.devices.push_back({0, "none", "", 9, 0});
  return p;
}

}  // namespace

std::string source_hash(const fs::path& source) {
  const std::string text = read_file(source);
  jit::Sha256 h;
  h.field("source", text);
  for (const auto& hdr : jit::scan_local_includes(source, text, source.parent_path(), {}, {})) {
    h.field("header", hdr.spelled);
    h.field("bytes", hdr.bytes);
  }
  return h.hex_digest();
}

Measurer replay_measurer(const TuneCommandOptions& opt, const task::TaskSpec& spec) {
  Measurer m;
  m.db_file = opt.db;
  m.ctx = replay_context(opt, spec.name);
  m.replay = std::make_unique<search::ReplayEvaluator>(opt.replay, m.ctx);
  m.evaluator = m.replay.get();
  fmt::print("ako tune {}: replaying {} (device {}, arch {}, source {}), no GPU used\n", spec.name,
             opt.replay.string(), m.ctx.device, m.ctx.arch, m.ctx.source_hash.substr(0, 12));
  if (!m.ctx.allow)
    fmt::print("note: these records predate the static checks in ako tune; their variants were not checked "
               "(spills, clock reads, ... may be among them)\n");
  if (m.ctx.centre == search::kCentreMedian)
    fmt::print("note: these records were timed before the IQM: their times are medians\n");
  m.source_text = fmt::format("ako tune --strategy {} --replay {} (recorded on {}, {}), {}", opt.strategy,
                              opt.replay.filename().string(), m.ctx.device, m.ctx.arch, utc_now());
  return m;
}

std::optional<Measurer> gpu_measurer(const TuneCommandOptions& opt, const task::TaskSpec& spec, const fs::path& root,
                                     bool lanes_elsewhere) {
  exec::GpuProbe gpu = exec::probe_gpu();
  if (!gpu.available && opt.compile_only) gpu = no_gpu_for_compile_only(opt);
  if (!gpu.available) {
    fmt::print(stderr, "ako tune: no GPU: {}\n(--replay FILE re-runs a search on a recorded tuning database)\n",
               gpu.reason);
    return std::nullopt;
  }
  const std::vector<exec::GpuDevice> selected = exec::select_gpus(gpu, opt.gpus);
  gpu.name = selected.front().name;
  gpu.major = selected.front().major;
  gpu.minor = selected.front().minor;
  if (!opt.device.empty() && task::device_config_file_name(opt.device) != task::device_config_file_name(gpu.name))
    throw Error("--device " + opt.device + ": this machine's GPU is " + gpu.name +
                "; ako tune measures on the GPU here and writes its config (--device picks a recorded device "
                "with --replay)");
  Measurer m;
  m.compile_only = opt.compile_only;
  m.ctx = gpu_context(opt, spec, gpu);
  pipeline::GpuEvaluatorOptions go = gpu_options(opt, spec, m.ctx);
  m.db_file = opt.db.empty() ? root / "bench" / "tuning" / (spec.name + ".jsonl") : opt.db;
  // The host's compile processes are shared out: each lane compiles its share of a batch
  // with its part of -j (default: every CPU), all lanes at once.
  const int jobs = opt.jobs > 0 ? opt.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool several = selected.size() > 1 || lanes_elsewhere;
  for (const auto& d : selected) {
    pipeline::GpuEvaluatorOptions lane = go;
    lane.gpu_uuid = d.uuid;
    lane.pin_to_gpu = selected.size() > 1;
    lane.lane = several;
    if (selected.size() > 1) lane.lane_index = static_cast<int>(m.gpus.size());  // its own scratch folder
    if (selected.size() > 1) lane.build.compile.jobs = std::max(1, jobs / static_cast<int>(selected.size()));
    m.gpus.push_back(std::make_unique<pipeline::GpuEvaluator>(spec, lane));
    m.lane_names.push_back(d.uuid.empty() ? fmt::format("GPU {}", d.ordinal) : d.uuid);
  }
  fmt::print("ako tune {}: {} (driver {}), arch {}, source {}\n", spec.name, m.ctx.device, m.ctx.driver, m.ctx.arch,
             m.ctx.source_hash.substr(0, 12));
  if (selected.size() > 1 || !opt.gpus.empty()) {
    std::string which;
    for (const auto& d : selected) which += fmt::format("{}{} {}", which.empty() ? "" : ", ", d.ordinal, d.uuid);
    fmt::print("GPUs: {} ({}), one worker each; -j {} compile processes per GPU\n", selected.size(), which,
               selected.size() > 1 ? std::max(1, jobs / static_cast<int>(selected.size())) : jobs);
  }
  if (opt.compile_only)
    fmt::print("compile-only: every variant is compiled and put through the static checks; nothing is run or timed, "
               "no winner is chosen\n");
  else
    fmt::print("validation {} input set(s) per case; timing: warm-up {} ms, at most {} s per kernel and case; the "
               "reference timed once per case{}\n",
               go.trials, go.warmup_ms, go.max_time_s, selected.size() > 1 ? " per GPU" : "");
  m.source_text = fmt::format("ako tune --strategy {}, {}{} (driver {}, {}), {}", opt.strategy,
                              selected.size() > 1 ? fmt::format("{} x ", selected.size()) : std::string(), m.ctx.device,
                              m.ctx.driver, m.ctx.arch, utc_now());
  return m;
}

void finish_lanes(Measurer& m) {
  if (m.replay) return;
  std::vector<search::Evaluator*> lanes;
  for (auto& g : m.gpus) lanes.push_back(g.get());
  for (auto& r : m.remote) lanes.push_back(r.get());
  if (lanes.size() == 1) {
    m.evaluator = lanes.front();
    return;
  }
  m.split = std::make_unique<search::SplitEvaluator>(lanes, m.lane_names);
  m.evaluator = m.split.get();
}

#define AKO_SUM(field)                                   \
  size_t Measurer::field() const {                       \
    size_t n = 0;                                        \
    for (const auto& g : gpus) n += g->field.load();     \
    return n;                                            \
  }
AKO_SUM(compiled)
AKO_SUM(compile_errors)
AKO_SUM(refused_static)
AKO_SUM(validated)
AKO_SUM(correct)
AKO_SUM(timed)
AKO_SUM(cases_run)
AKO_SUM(not_started)
AKO_SUM(drift_windows)
AKO_SUM(remeasured)
#undef AKO_SUM

size_t Measurer::references_timed() const {
  size_t n = 0;
  for (const auto& g : gpus) n += g->references.timed();
  return n;
}

nlohmann::json Measurer::sentinels_json() const {
  if (gpus.empty() || compile_only) return nullptr;
  pipeline::SentinelTally all;
  std::string highest_gpu;
  for (size_t i = 0; i < gpus.size(); ++i)
    if (all.merge(gpus[i]->sentinel_tally())) highest_gpu = i < lane_names.size() ? lane_names[i] : std::string();
  nlohmann::json out{{"readings", all.readings}, {"probe_readings", all.probe_readings},
                     {"probes_unread", all.probes_unread}};
  if (all.highest_ratio > 0)
    out["highest"] = {{"ratio", all.highest_ratio}, {"label", all.highest_label}, {"probe", all.highest_probe},
                      {"at", all.highest_at}, {"gpu", highest_gpu}};
  return out;
}

std::vector<std::string> Measurer::drift_notes() const {
  std::vector<std::string> out;
  for (const auto& g : gpus)
    for (const auto& n : g->drift_notes()) out.push_back(n);
  return out;
}

std::vector<std::string> Measurer::cache_notes() const {
  std::vector<std::string> out;
  for (const auto& g : gpus)
    for (const auto& n : g->cache_notes())
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

}  // namespace ako::cli
