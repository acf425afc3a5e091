#include "cli/commands/tune_command.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <mutex>

#include <fmt/format.h>

#include "cli/commands/tune_measurer.hpp"
#include "cli/commands/tune_report.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format/progress.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/utc_time.hpp"
#include "exec/client/gpu_probe.hpp"
#include "exec/client/gpu_selection.hpp"
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

// The live line: where the search is, what the GPU side has done (over every GPU), the best so
// far, the ETA (over every GPU: the tuner's batches are split over them).
std::string progress_line(const search::Progress& p, const Measurer& m) {
  std::string line = fmt::format("{} {}/{}", p.cls, p.asked, p.valid);
  if (!m.gpus.empty() && m.compile_only)
    line += fmt::format(" | compiled {} refused {} errors {}", m.compiled(), m.refused_static(), m.compile_errors());
  else if (!m.gpus.empty())
    line += fmt::format(" | compiled {} refused {} validated {} timed {}", m.compiled(), m.refused_static(),
                        m.validated(), m.timed());
  if (m.lanes() > 1) line += fmt::format(" | {} lanes", m.split ? m.split->live_lanes() : m.lanes());
  if (p.best_score) line += fmt::format(" | best {:.2f} us", *p.best_score);
  if (p.eta_s) line += " | ETA " + search::format_duration(*p.eta_s);
  return line;
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
  std::mutex mutex;  // several GPU lanes report their cases from their own threads
  for (auto& g : m.gpus)
    g->on_case = [&](const std::string& label, const std::string& what) {
      const std::lock_guard<std::mutex> lock(mutex);
      progress.update(done, planned, status, label + " " + what);
    };
  const search::TuneOutcome o = search::tune(spec, shapes, mode, to, *m.evaluator, db, [&](const search::Progress& p) {
    const std::lock_guard<std::mutex> lock(mutex);
    status = progress_line(p, m);
    done = static_cast<int>(p.variants_done);
    planned = static_cast<int>(p.variants_planned);
    progress.update(done - 1, planned, "tune", status);
  });
  progress.clear();
  for (auto& g : m.gpus) g->on_case = nullptr;  // it captured this frame
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
  // A compile-only run measures nothing: its new (variant, shape) pairs were compiled and checked.
  fmt::print("TUNE: {}/{} classes tuned, {} variants evaluated, {} refused by static checks, {} (variant, shape) "
             "pairs {}, {} reused",
             tuned, with_shapes, evaluations, refused, o.measured, m.compile_only ? "compiled" : "measured", o.reused);
  if (m.replay) fmt::print(", {} not in the replay file", m.replay->misses);
  if (!m.gpus.empty() && m.compile_only)
    fmt::print(", {} variants built, {} compile errors, nothing run (compile-only)", m.compiled(), m.compile_errors());
  else if (!m.gpus.empty())
    fmt::print(", {} variants built, {} compile errors, {} validated ({} correct), {} cases run, reference timed on {} cases",
               m.compiled(), m.compile_errors(), m.validated(), m.correct(), m.cases_run(), m.references_timed());
  if (m.remeasured() > 0)
    fmt::print(", {} cases measured again after {} slow window(s)", m.remeasured(), m.drift_windows());
  if (m.lanes() > 1)
    fmt::print(", {} lanes ({} lost, {} (variant, shape) pairs retried on another)", m.lanes(),
               m.lanes() - m.split->live_lanes(), m.split->retried.load());
  fmt::print(", wall {:.2f} s\n", wall);
  return {tuned, with_shapes};
}

// --compile-only's verdict: 0 when every variant asked compiled and passed the static checks.
int print_compile_only_line(const search::TuneOutcome& o) {
  size_t evaluations = 0, wrong = 0, refused = 0;
  for (const auto& co : o.classes) {
    evaluations += co.evaluations;
    wrong += co.wrong;
    refused += co.refused;
  }
  fmt::print("COMPILE-ONLY: {} of {} variants compiled and passed the static checks; {} failed ({} refused by the "
             "static checks); nothing was run or timed\n",
             evaluations - wrong, evaluations, wrong, refused);
  return wrong == 0 ? kExitOk : kExitIncorrect;
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
  to.where = opt.where;

  if (opt.compile_only && !opt.replay.empty()) throw Error("--compile-only and --replay: a replay compiles nothing");
  if (opt.compile_only && opt.write_config)
    throw Error("--compile-only --write-config: a compile-only run measures nothing, so it has no winners to write");
  if (!opt.gpus.empty() && !opt.replay.empty()) throw Error("--gpus and --replay: a replay uses no GPU");
  exec::check_gpus_spec(opt.gpus);  // a malformed --gpus is said as such, before any GPU is probed
  std::optional<Measurer> measurer =
      opt.replay.empty() ? gpu_measurer(opt, spec, root, static_cast<bool>(opt.add_lanes)) : replay_measurer(opt, spec);
  if (!measurer) return kExitUsage;
  Measurer& m = *measurer;
  to.compile_only = m.compile_only;
  if (opt.add_lanes) opt.add_lanes(m);
  finish_lanes(m);
  // --time also ends a batch's compiles: a fresh machine's first batch can take minutes.
  for (auto& g : m.gpus) g->set_compile_stop([&] { return budget_clock.expired(); });
  // Exhaustive and random ignore scores: a batch per GPU keeps each GPU's worker as busy as one
  // GPU's is. Evolve keeps its batch (the search stays what it is on one GPU), split over them.
  if (opt.batch == 0 && opt.strategy != "evolve" && m.lanes() > 1) to.batch *= m.lanes();

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
  const nlohmann::json doc = search::config_document(o, m.source_text, spec.config_source);
  std::vector<task::ConfigClass> written;
  if (!config_out.empty()) written = task::parse_config(doc, spec.root / config_out, spec);
  const std::vector<UnseenShape> unseen = unseen_shapes(spec, written, shapes);
  print_unseen(unseen);

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("\n");
  for (const auto& note : m.cache_notes()) fmt::print(stderr, "{}\n", note);
  if (m.split)
    for (const auto& note : m.split->notes()) fmt::print("{}\n", note);
  // Slow windows (pipeline/drift_sentinel.hpp): a few in full, then how many more.
  const auto drift = m.drift_notes();
  for (size_t i = 0; i < drift.size() && i < 5; ++i) fmt::print("drift: {}\n", drift[i]);
  if (drift.size() > 5) fmt::print("drift: {} more such notes\n", drift.size() - 5);
  if (!m.gpus.empty()) print_pipeline(o.pipeline);
  const auto [tuned, with_shapes] = print_tune_line(o, m, wall);
  if (o.stopped)
    fmt::print("STOPPED: the time budget ({}) ran out; in a written config an incomplete class keeps its params unless "
               "its winner so far measured more than 1% faster than them (either way marked \"partial\" where its params were measured). "
               "Run the same command again to resume from {}\n",
               search::format_duration(time_budget.value_or(0)), m.db_file.empty() ? "(no database)" : m.db_file.string());
  if (m.not_started() > 0)
    fmt::print("NOT COMPILED: {} variant(s) of the last batch: the time budget ran out before their compile started; "
               "nothing is recorded for them, so a resumed tune asks them again\n",
               m.not_started());

  if (!opt.json.empty()) {
    TuneRunInfo info{spec.name, opt.strategy, opt.budget, m.db_file.string(), opt.seed, wall, time_budget,
                     !opt.replay.empty(), m.remeasured(), drift, m.sentinels_json()};
    write_file_atomically(opt.json, summary_json(info, o, db, unseen).dump(2) + "\n");
  }
  if (opt.write_config) write_device_config(spec, config_out, m.ctx.device, doc);
  if (m.compile_only) return print_compile_only_line(o);
  return tuned == with_shapes ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
