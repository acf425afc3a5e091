#include "cli/commands/tune_command.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands/tune_report.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format/progress.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/utc_time.hpp"
#include "exec/client/gpu_probe.hpp"
#include "jit/compiler.hpp"
#include "jit/include_scan.hpp"
#include "jit/sha256.hpp"
#include "pipeline/run_plan.hpp"
#include "pipeline/tune_evaluator.hpp"
#include "pipeline/workspace.hpp"
#include "search/time_budget.hpp"
#include "search/tuner.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task/json_field.hpp"
#include "task/spec.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

// sha256 over the solution file and every header it reaches by quoted #include: the key
// that invalidates old tuning records when the kernel changes.
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

std::vector<const task::ShapeSpec*> select_shapes(const task::TaskSpec& spec, const std::vector<std::string>& names) {
  std::vector<std::string> known;
  for (const auto& s : spec.shapes) known.push_back(s.name);
  for (const auto& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end())
      throw Error(fmt::format("--shapes {}: task {} has no such shape; its shapes: {}", n, spec.name,
                              task::join_names(known)));
  std::vector<const task::ShapeSpec*> out;
  for (const auto& s : spec.shapes)
    if (names.empty() || std::count(names.begin(), names.end(), s.name)) out.push_back(&s);
  return out;
}

// The live line: where the search is, what the GPU side has done, the best so far, the ETA.
std::string progress_line(const search::Progress& p, const pipeline::GpuEvaluator* gpu) {
  std::string line = fmt::format("{} {}/{}", p.cls, p.asked, p.valid);
  if (gpu)
    line += fmt::format(" | compiled {} refused {} validated {} timed {}", gpu->compiled.load(),
                        gpu->refused_static.load(), gpu->validated, gpu->timed);
  if (p.best_score) line += fmt::format(" | best {:.2f} us", *p.best_score);
  if (p.eta_s) line += " | ETA " + search::format_duration(*p.eta_s);
  return line;
}

// The records to replay: the file's last context of the task, or of --device's records.
search::DbContext replay_context(const TuneCommandOptions& opt, const std::string& task) {
  const auto last = search::TuningDb::last_context(opt.replay, task, opt.device);
  if (last) return *last;
  if (opt.device.empty()) throw Error(fmt::format("{}: no tuning records of task {}", opt.replay.string(), task));
  const auto devices = search::TuningDb::recorded_devices(opt.replay, task);
  throw Error(fmt::format("--device {}: {} has no records of task {} measured on it (devices there: {})", opt.device,
                          opt.replay.string(), task, devices.empty() ? std::string("none") : task::join_names(devices)));
}

// solution/<task>/configs/device_name=<device>.json: the only file `--write-config` writes
// (never default.json, never another device's). Empty when the task names no config folder.
fs::path device_config_path(const task::TaskSpec& spec, const std::string& device) {
  if (spec.solution.config.empty() || device.empty()) return {};
  return spec.solution.config / task::device_config_file_name(device);
}

void write_device_config(const task::TaskSpec& spec, const fs::path& relative, const std::string& device,
                         const nlohmann::json& doc) {
  if (spec.solution.config.empty()) throw Error("--write-config: task " + spec.name + " names no solution.config");
  if (relative.empty()) throw Error("--write-config: the measurements name no device, so there is no device file to write");
  const fs::path file = spec.root / relative;
  fs::create_directories(file.parent_path());
  const bool existed = fs::exists(file);
  write_file_atomically(file, doc.dump(2) + "\n");
  fmt::print("wrote {} ({} classes) for {}{}; default.json and other devices' files unchanged\n", file.string(),
             doc["classes"].size(), device, existed ? ", replacing its previous config" : "");
}

// --budget: "N" variants per class or "P%" of its valid points.
void parse_budget(const std::string& budget, search::TuneOptions& to) {
  if (budget.empty()) return;
  try {
    size_t used = 0;
    const double v = std::stod(budget, &used);
    const bool pct = used + 1 == budget.size() && budget.back() == '%';
    if ((!pct && used != budget.size()) || v <= 0 || (pct && v > 100)) throw std::invalid_argument(budget);
    if (pct)
      to.budget_fraction = v / 100;
    else
      to.budget = static_cast<size_t>(v);
  } catch (const std::exception&) {
    throw Error("--budget " + budget + ": expected a number of variants per class (e.g. 60) or a percentage (e.g. 25%)");
  }
}

// What measures the variants: the recorded database (--replay) or the GPU here.
struct Measurer {
  search::DbContext ctx;
  std::unique_ptr<search::Evaluator> evaluator;
  search::ReplayEvaluator* replay = nullptr;
  pipeline::GpuEvaluator* gpu = nullptr;
  std::string source_text;               // the config document's "source"
  fs::path db_file;
};

Measurer replay_measurer(const TuneCommandOptions& opt, const task::TaskSpec& spec) {
  Measurer m;
  m.db_file = opt.db;
  m.ctx = replay_context(opt, spec.name);
  auto r = std::make_unique<search::ReplayEvaluator>(opt.replay, m.ctx);
  m.replay = r.get();
  m.evaluator = std::move(r);
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

// The records' context on the GPU here (dtypes are added by gpu_options).
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
  return go;
}

// Nothing (after saying why) when there is no GPU.
std::optional<Measurer> gpu_measurer(const TuneCommandOptions& opt, const task::TaskSpec& spec, const fs::path& root) {
  const exec::GpuProbe gpu = exec::probe_gpu();
  if (!gpu.available) {
    fmt::print(stderr, "ako tune: no GPU: {}\n(--replay FILE re-runs a search on a recorded tuning database)\n",
               gpu.reason);
    return std::nullopt;
  }
  if (!opt.device.empty() && task::device_config_file_name(opt.device) != task::device_config_file_name(gpu.name))
    throw Error("--device " + opt.device + ": this machine's GPU is " + gpu.name +
                "; ako tune measures on the GPU here and writes its config (--device picks a recorded device "
                "with --replay)");
  Measurer m;
  m.ctx = gpu_context(opt, spec, gpu);
  const pipeline::GpuEvaluatorOptions go = gpu_options(opt, spec, m.ctx);
  m.db_file = opt.db.empty() ? root / "bench" / "tuning" / (spec.name + ".jsonl") : opt.db;
  auto g = std::make_unique<pipeline::GpuEvaluator>(spec, go);
  m.gpu = g.get();
  m.evaluator = std::move(g);
  fmt::print("ako tune {}: {} (driver {}), arch {}, source {}\n", spec.name, m.ctx.device, m.ctx.driver, m.ctx.arch,
             m.ctx.source_hash.substr(0, 12));
  fmt::print("validation {} input set(s) per case; timing: warm-up {} ms, at most {} s per kernel and case; the "
             "reference timed once per case\n",
             go.trials, go.warmup_ms, go.max_time_s);
  m.source_text = fmt::format("ako tune --strategy {}, {} (driver {}, {}), {}", opt.strategy, m.ctx.device,
                              m.ctx.driver, m.ctx.arch, utc_now());
  return m;
}

void print_database(const fs::path& db_file, const search::TuningDb& db) {
  if (db_file.empty()) return;
  fmt::print("database {}: {} usable records{}{}\n", db_file.string(), db.size(),
             db.other_context ? fmt::format(", {} ignored (another context; {} of them another source hash{})",
                                            db.other_context, db.other_source,
                                            db.other_centre ? fmt::format(", {} timed before the IQM (medians)",
                                                                          db.other_centre)
                                                            : std::string())
                              : std::string(),
             db.skipped_lines ? fmt::format(", {} unreadable lines skipped", db.skipped_lines) : std::string());
}

// The search, with the live line on stderr.
search::TuneOutcome run_search(const task::TaskSpec& spec, const std::vector<const task::ShapeSpec*>& shapes,
                               search::ClassMode mode, const search::TuneOptions& to, Measurer& m,
                               search::TuningDb& db, Progress& progress) {
  std::string status = "starting";
  int done = 0, planned = 0;
  if (m.gpu)
    m.gpu->on_case = [&](const std::string& label, const std::string& what) {
      progress.update(done, planned, status, label + " " + what);
    };
  const search::TuneOutcome o = search::tune(spec, shapes, mode, to, *m.evaluator, db, [&](const search::Progress& p) {
    status = progress_line(p, m.gpu);
    done = static_cast<int>(p.variants_done);
    planned = static_cast<int>(p.variants_planned);
    progress.update(done - 1, planned, "tune", status);
  });
  progress.clear();
  if (m.gpu) m.gpu->on_case = nullptr;  // it captured this frame
  return o;
}

// The TUNE: line; returns the number of classes tuned and of classes with shapes.
std::pair<size_t, size_t> print_tune_line(const search::TuneOutcome& o, const Measurer& m, double wall) {
  size_t evaluations = 0, tuned = 0, with_shapes = 0, refused = 0;
  for (const auto& co : o.classes) {
    evaluations += co.evaluations;
    refused += co.refused;
    if (!co.cls.shapes.empty()) ++with_shapes;
    if (co.winner) ++tuned;
  }
  fmt::print("TUNE: {}/{} classes tuned, {} variants evaluated, {} refused by static checks, {} (variant, shape) "
             "pairs measured, {} reused",
             tuned, with_shapes, evaluations, refused, o.measured, o.reused);
  if (m.replay) fmt::print(", {} not in the replay file", m.replay->misses);
  if (m.gpu)
    fmt::print(", {} compiled, {} compile errors, {} validated ({} correct), {} cases run, reference timed on {} cases",
               m.gpu->compiled.load(), m.gpu->compile_errors.load(), m.gpu->validated, m.gpu->correct,
               m.gpu->cases_run, m.gpu->references.timed());
  fmt::print(", wall {:.2f} s\n", wall);
  return {tuned, with_shapes};
}

}  // namespace

int tune_command(const TuneCommandOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  Progress progress(stderr, opt.progress.value_or(is_terminal(stderr)));
  const fs::path root = pipeline::find_workspace(opt.root);
  task::TaskSpec spec = task::load_task(root, opt.task);
  const auto shapes = select_shapes(spec, opt.shapes);
  const search::ClassMode mode = opt.classes == "shape" ? search::ClassMode::shape : search::ClassMode::config;

  search::TuneOptions to;
  to.strategy.name = opt.strategy;
  to.strategy.seed = opt.seed;
  parse_budget(opt.budget, to);
  // Learning strategies want small batches (feedback sooner); the others amortise the
  // worker's start over large ones.
  to.batch = opt.batch > 0 ? opt.batch : (opt.strategy == "evolve" ? 32 : 128);
  std::optional<double> time_budget;
  if (!opt.time.empty()) time_budget = search::parse_duration(opt.time);
  const search::TimeBudget budget_clock(time_budget);
  to.stop = [&] { return budget_clock.expired(); };

  std::optional<Measurer> measurer = opt.replay.empty() ? gpu_measurer(opt, spec, root) : replay_measurer(opt, spec);
  if (!measurer) return kExitUsage;
  Measurer& m = *measurer;

  // The search starts from the tuned device's config (its classes, its params), as `ako run`
  // on that device would use it.
  const ConfigUsed config =
      task::use_device_config(spec, m.ctx.device, m.replay ? task::kDeviceFromReplay : task::kDeviceFromGpu);
  fmt::print("config: {}\n", config.message);
  const fs::path config_out = device_config_path(spec, m.ctx.device);

  // A run killed inside a write may have left a torn last line: cut off (or completed) before
  // loading, and said.
  if (const auto repaired = search::TuningDb::repair_interrupted_append(m.db_file)) fmt::print("{}\n", *repaired);
  search::TuningDb db(m.db_file, m.ctx);
  print_database(m.db_file, db);
  fmt::print("strategy {} (seed {}), budget {} per class, batches of {}{}\n\n", opt.strategy, opt.seed,
             opt.budget.empty() ? std::string("unlimited") : opt.budget, to.batch,
             time_budget ? ", time budget " + search::format_duration(*time_budget) : std::string());

  const search::TuneOutcome o = run_search(spec, shapes, mode, to, m, db, progress);
  print_outcome(o, db);
  const nlohmann::json doc = search::config_document(o, m.source_text);
  std::vector<task::ConfigClass> written;
  if (!config_out.empty()) written = task::parse_config(doc, spec.root / config_out, spec);
  const std::vector<UnseenShape> unseen = unseen_shapes(spec, written, shapes);
  print_unseen(unseen);

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("\n");
  if (m.gpu)
    for (const auto& note : m.gpu->cache_notes()) fmt::print(stderr, "{}\n", note);
  if (m.gpu) print_pipeline(o.pipeline);
  const auto [tuned, with_shapes] = print_tune_line(o, m, wall);
  if (o.stopped)
    fmt::print("STOPPED: the time budget ({}) ran out; in a written config an incomplete class keeps its params unless "
               "its winner so far measured more than 1% faster than them (either way marked \"partial\" where its params were measured). "
               "Run the same command again to resume from {}\n",
               search::format_duration(time_budget.value_or(0)), m.db_file.empty() ? "(no database)" : m.db_file.string());

  if (!opt.json.empty()) {
    TuneRunInfo info{spec.name, opt.strategy, opt.budget, m.db_file.string(), opt.seed, wall, time_budget,
                     !opt.replay.empty()};
    write_file_atomically(opt.json, summary_json(info, o, db, unseen).dump(2) + "\n");
  }
  if (opt.write_config) write_device_config(spec, config_out, m.ctx.device, doc);
  return tuned == with_shapes ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
