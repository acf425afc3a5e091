#include "cli/commands/tune_command.hpp"

#include <chrono>
#include <ctime>
#include <set>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands/run_plan.hpp"
#include "cli/commands/workspace.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format/progress.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "exec/client/gpu_probe.hpp"
#include "exec/client/worker_client.hpp"
#include "jit/include_scan.hpp"
#include "jit/sha256.hpp"
#include "search/tuner.hpp"
#include "task/cases.hpp"
#include "task/json_field.hpp"
#include "task/spec.hpp"

namespace ako::cli {

namespace fs = std::filesystem;

namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

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

const char* worst_verdict(const char* a, const std::string& b) {
  auto rank = [](const std::string& v) { return v == "failed" ? 3 : v == "incorrect" ? 2 : v == "skipped" ? 1 : 0; };
  static const char* names[] = {"correct", "skipped", "incorrect", "failed"};
  return names[std::max(rank(a), rank(b))];
}

// Compiles each batch (one NVRTC program per variant, in parallel processes; the reference
// and support kernels once, then from the cache) and runs every (variant, case) in one worker
// job: each case is validated against the reference before it is timed; a wrong or crashing
// variant costs its cases only. Batches are independent, so compiling batch k+1 while the
// worker measures batch k only needs this call split in two (not done yet).
class GpuEvaluator : public search::Evaluator {
 public:
  GpuEvaluator(const task::TaskSpec& spec, const TuneCommandOptions& opt, std::string arch, uint64_t seed,
               Progress& progress)
      : spec_(spec), opt_(opt), arch_(std::move(arch)), seed_(seed), progress_(progress) {
    for (const auto& d : opt.dtypes) {
      auto t = parse_dtype(d);
      if (!t) throw Error("--dtypes " + d + ": unknown dtype (expected bf16, fp16 or fp32)");
      dtypes_.push_back(*t);
    }
    build_.arch = arch_;
    build_.compile.cache_dir = opt.cache_dir.empty() ? jit::default_cache_dir() : opt.cache_dir;
    build_.compile.use_cache = !opt.no_cache;
    build_.compile.jobs = opt.jobs;
    build_.root = spec.root;
    trials_ = opt.trials > 0 ? opt.trials : spec.trials;
  }

  size_t compiled = 0, compile_errors = 0, cases_run = 0;
  std::optional<DeviceInfo> device;

  std::vector<search::DbRecord> evaluate(const std::vector<search::EvalRequest>& batch) override {
    std::vector<search::DbRecord> out;
    struct Variant {
      const search::EvalRequest* req;
      std::vector<task::Case> cases;
      jit::CompiledModule module;
      int registers = -1;
      std::string error;
    };
    std::vector<Variant> vs;
    std::vector<task::Case> reference_cases;
    for (const auto& req : batch) {
      Variant v{&req, {}, {}, -1, {}};
      task::CaseFilter f;
      for (const auto* s : req.shapes) f.shapes.push_back(s->name);
      f.dtypes = dtypes_;
      try {
        v.cases = task::expand_cases(spec_, f, req.params, false);
      } catch (const Error& e) {
        v.error = std::string("invalid: ") + e.what();  // the space should have caught it
      }
      for (auto c : v.cases) {
        c.solution.reset();
        reference_cases.push_back(std::move(c));
      }
      vs.push_back(std::move(v));
    }

    progress_.note(fmt::format("compiling {} variants", vs.size()));
    BuiltKernels base = build_kernels(reference_cases, build_);
    if (!base.errors.empty()) throw Error("the reference or support kernels do not compile:\n" + base.errors.front());
    std::vector<jit::CompileRequest> reqs;
    std::vector<size_t> req_variant;
    for (size_t i = 0; i < vs.size(); ++i) {
      if (!vs[i].error.empty() || vs[i].cases.empty()) continue;
      jit::CompileRequest r;
      r.source = vs[i].cases.front().solution->file;
      r.display_name = fs::relative(r.source, spec_.root).string();
      std::set<std::string> names;
      for (const auto& c : vs[i].cases) names.insert(c.solution->name_expression);
      r.name_expressions.assign(names.begin(), names.end());
      r.arch = arch_;
      reqs.push_back(std::move(r));
      req_variant.push_back(i);
    }
    const jit::BatchResult br = jit::compile_all(reqs, build_.compile);
    for (size_t k = 0; k < reqs.size(); ++k) {
      Variant& v = vs[req_variant[k]];
      if (!br.errors[k].empty()) {
        ++compile_errors;
        v.error = "compile error: " + br.errors[k].substr(0, br.errors[k].find('\n', br.errors[k].find('\n') + 1));
        continue;
      }
      ++compiled;
      v.module = br.modules[k];
      for (const auto& [lowered, res] : v.module.resources) v.registers = std::max(v.registers, res.registers);
    }

    // One job for the batch: every compiled variant's cases, same inputs per case label.
    exec::TimingOptions timing;
    timing.hot = opt_.hot;
    timing.max_time_s = opt_.max_time_s;
    exec::WorkerJob job;
    std::vector<std::pair<size_t, size_t>> owner;  // job case -> (variant, case)
    for (size_t i = 0; i < vs.size(); ++i) {
      if (!vs[i].error.empty()) continue;
      BuiltKernels bk = base;
      bk.modules[vs[i].cases.front().solution->file.string()] = vs[i].module;
      exec::WorkerJob vj = make_worker_job(vs[i].cases, bk, spec_.op, trials_, seed_, timing, true,
                                           build_.compile.cache_dir);
      if (job.cases.empty()) {
        job.support = vj.support;
        job.timing = vj.timing;
        job.cache_dir = vj.cache_dir;
      }
      for (size_t c = 0; c < vj.cases.size(); ++c) {
        vj.cases[c].index = static_cast<int>(job.cases.size());
        owner.emplace_back(i, c);
        job.cases.push_back(std::move(vj.cases[c]));
      }
    }
    std::vector<std::vector<CaseResult>> results(vs.size());
    for (size_t i = 0; i < vs.size(); ++i) results[i].resize(vs[i].cases.size());
    if (!job.cases.empty()) {
      exec::ClientOptions copt;
      copt.worker_exe = worker_executable();
      copt.case_timeout_s = opt_.case_timeout_s;
      copt.scratch_dir = fs::temp_directory_path() / fmt::format("ako-tune-{}", ::getpid());
      fs::create_directories(copt.scratch_dir);
      const int total = static_cast<int>(job.cases.size());
      int done = 0;
      exec::ClientCallbacks cb;
      cb.on_device = [&](const DeviceInfo& d) { device = d; };
      cb.on_begin = [&](int i) { progress_.update(done, total, job.cases[i].label, "validating"); };
      cb.on_phase = [&](int i, const std::string&) { progress_.update(done, total, job.cases[i].label, "timing"); };
      cb.on_result = [&](const CaseResult&) { ++done; };
      exec::WorkerRun run = exec::run_worker(job, copt, cb);
      std::error_code ec;
      fs::remove_all(copt.scratch_dir, ec);
      for (const auto& r : run.results)
        if (r.index >= 0 && r.index < total) {
          auto [vi, ci] = owner[r.index];
          results[vi][ci] = r;
        }
      cases_run += run.results.size();
      if (!run.fatal.empty() && run.results.empty()) throw Error("the worker could not run: " + run.fatal);
    }

    // One record per (variant, shape): the sum of the solution medians over its cases.
    for (size_t i = 0; i < vs.size(); ++i) {
      const Variant& v = vs[i];
      for (const auto* s : v.req->shapes) {
        search::DbRecord rec;
        rec.shape = s->name;
        rec.params = v.req->params;
        rec.registers = v.registers;
        rec.recorded_at = utc_now();
        rec.median_us = 0;
        const char* verdict = "correct";
        if (!v.error.empty()) {
          verdict = "failed";
          rec.reason = v.error;
        }
        for (size_t c = 0; c < v.cases.size() && v.error.empty(); ++c) {
          if (v.cases[c].shape != s) continue;
          const CaseResult& r = results[i][c];
          search::DbCase dc{v.cases[c].label(), verdict_name(r.verdict), 0, 0};
          if (r.solution_time) {
            dc.median_us = r.solution_time->median_us;
            dc.ci_rel = r.solution_time->ci_rel;
          }
          verdict = worst_verdict(verdict, dc.verdict);
          if (dc.verdict != "correct" && rec.reason.empty()) rec.reason = dc.label + ": " + r.reason;
          if (dc.verdict == "correct" && dc.median_us <= 0) {
            verdict = worst_verdict(verdict, "skipped");
            if (rec.reason.empty()) rec.reason = dc.label + ": not timed";
          }
          rec.median_us += dc.median_us;
          rec.ci_rel = std::max(rec.ci_rel, dc.ci_rel);
          rec.cases.push_back(std::move(dc));
        }
        rec.verdict = verdict;
        out.push_back(std::move(rec));
      }
    }
    return out;
  }

 private:
  const task::TaskSpec& spec_;
  const TuneCommandOptions& opt_;
  std::string arch_;
  uint64_t seed_;
  Progress& progress_;
  std::vector<DType> dtypes_;
  BuildOptions build_;
  int trials_ = 3;
};

std::string classes_shapes(const search::ShapeClass& c) {
  std::vector<std::string> names;
  for (const auto* s : c.shapes) names.push_back(s->name);
  return names.empty() ? std::string("-") : task::join_names(names, ",");
}

void print_outcome(const search::TuneOutcome& o, const search::TuningDb& db) {
  fmt::print("{:<14} {:<44} {:>9} {:>6} {:>6} {:>5}  {:<44} {:>10} {:>5} {:>10}\n", "class", "shapes", "valid",
             "tried", "usable", "wrong", "winner", "score_us", "regs", "vs current");
  for (const auto& co : o.classes) {
    if (co.cls.shapes.empty()) continue;
    std::string vs = "-";
    if (co.winner)
      if (auto cur = search::class_score(db, co.cls.shapes, co.cls.current))
        vs = fmt::format("{:+.1f}%", 100.0 * (co.winner_score / *cur - 1.0));
    fmt::print("{:<14} {:<44} {:>9} {:>6} {:>6} {:>5}  {:<44} {:>10} {:>5} {:>10}\n", co.cls.name,
               classes_shapes(co.cls), fmt::format("{}/{}", co.space.valid.size(), co.space.total), co.evaluations,
               co.usable, co.wrong, co.winner ? search::params_text(*co.winner) : std::string("(none)"),
               co.winner ? fmt::format("{:.2f}", co.winner_score) : std::string("-"),
               co.winner_registers >= 0 ? std::to_string(co.winner_registers) : std::string("-"), vs);
    if (!co.tie_note.empty()) fmt::print("{:<14} tie: {}\n", "", co.tie_note);
  }
  fmt::print("\ncoverage (each shape: its class's config against the shape's own best record):\n");
  fmt::print("{:<14} {:<14} {:<44} {:>10} {:<44} {:>10} {:>7}\n", "shape", "class", "config", "time_us", "own best",
             "best_us", "loss");
  for (const auto& r : o.coverage)
    fmt::print("{:<14} {:<14} {:<44} {:>10.2f} {:<44} {:>10.2f} {:>6.1f}%\n", r.shape, r.cls,
               search::params_text(r.used), r.used_us, search::params_text(r.own_best), r.own_best_us, r.loss_pct);
  std::map<std::string, uint64_t> rejected;
  for (const auto& co : o.classes)
    for (const auto& [why, n] : co.space.rejected) rejected[why] += n;
  if (!rejected.empty()) {
    fmt::print("\nrejected points, summed over the tuned classes (first rule that fails):\n");
    for (const auto& [why, n] : rejected) fmt::print("  {:>6}  {}\n", n, why);
  }
  std::vector<std::string> untuned;
  for (const auto& co : o.classes)
    if (co.cls.shapes.empty()) untuned.push_back(co.cls.name);
  if (!untuned.empty())
    fmt::print("\nuntuned classes (no shape of the set; their params kept): {}\n", task::join_names(untuned));
}

}  // namespace

int tune_command(const TuneCommandOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  Progress progress(stderr, opt.progress.value_or(is_terminal(stderr)));
  const fs::path root = find_workspace(opt.root);
  const task::TaskSpec spec = task::load_task(root, opt.task);
  const auto shapes = select_shapes(spec, opt.shapes);
  const search::ClassMode mode = opt.classes == "shape" ? search::ClassMode::shape : search::ClassMode::config;

  search::TuneOptions to;
  to.strategy.name = opt.strategy;
  to.strategy.seed = opt.seed;
  if (!opt.budget.empty()) {
    try {
      size_t used = 0;
      const double v = std::stod(opt.budget, &used);
      const bool pct = used + 1 == opt.budget.size() && opt.budget.back() == '%';
      if ((!pct && used != opt.budget.size()) || v <= 0 || (pct && v > 100)) throw std::invalid_argument(opt.budget);
      if (pct)
        to.budget_fraction = v / 100;
      else
        to.budget = static_cast<size_t>(v);
    } catch (const std::exception&) {
      throw Error("--budget " + opt.budget + ": expected a number of variants per class (e.g. 60) or a percentage (e.g. 25%)");
    }
  }
  to.batch = std::max<size_t>(1, opt.batch);

  std::string source_text;
  search::DbContext ctx;
  std::unique_ptr<search::Evaluator> evaluator;
  search::ReplayEvaluator* replay = nullptr;
  GpuEvaluator* gpu_eval = nullptr;
  fs::path db_file = opt.db;
  if (!opt.replay.empty()) {
    auto last = search::TuningDb::last_context(opt.replay, spec.name);
    if (!last) throw Error(fmt::format("{}: no tuning records of task {}", opt.replay.string(), spec.name));
    ctx = *last;
    auto r = std::make_unique<search::ReplayEvaluator>(opt.replay, ctx);
    replay = r.get();
    evaluator = std::move(r);
    fmt::print("ako tune {}: replaying {} (device {}, arch {}, source {}), no GPU used\n", spec.name,
               opt.replay.string(), ctx.device, ctx.arch, ctx.source_hash.substr(0, 12));
    source_text = fmt::format("ako tune --strategy {} --replay {} (recorded on {}, {}), {}", opt.strategy,
                              opt.replay.filename().string(), ctx.device, ctx.arch, utc_now());
  } else {
    const exec::GpuProbe gpu = exec::probe_gpu();
    if (!gpu.available) {
      fmt::print(stderr, "ako tune: no GPU: {}\n(--replay FILE re-runs a search on a recorded tuning database)\n",
                 gpu.reason);
      return kExitUsage;
    }
    ctx.task = spec.name;
    ctx.source_hash = source_hash((spec.root / spec.solution.file).lexically_normal());
    ctx.device = gpu.name;
    ctx.driver = gpu.driver_version;
    ctx.nvrtc = jit::nvrtc_version_string();
    ctx.arch = opt.arch.empty() ? exec::arch_for(gpu.major, gpu.minor) : opt.arch;
    ctx.l2 = opt.hot ? "hot" : "cold";
    for (DType t : spec.dtypes)
      if (opt.dtypes.empty() || std::count(opt.dtypes.begin(), opt.dtypes.end(), std::string(dtype_name(t))))
        ctx.dtypes.emplace_back(dtype_name(t));
    if (db_file.empty()) db_file = root / "bench" / "tuning" / (spec.name + ".jsonl");
    auto g = std::make_unique<GpuEvaluator>(spec, opt, ctx.arch, opt.seed, progress);
    gpu_eval = g.get();
    evaluator = std::move(g);
    fmt::print("ako tune {}: {} (driver {}), arch {}, source {}\n", spec.name, ctx.device, ctx.driver, ctx.arch,
               ctx.source_hash.substr(0, 12));
    source_text = fmt::format("ako tune --strategy {}, {} (driver {}, {}), {}", opt.strategy, ctx.device,
                              ctx.driver, ctx.arch, utc_now());
  }

  search::TuningDb db(db_file, ctx);
  if (!db_file.empty())
    fmt::print("database {}: {} usable records{}{}\n", db_file.string(), db.size(),
               db.other_context ? fmt::format(", {} ignored (another context; {} of them another source hash)",
                                              db.other_context, db.other_source)
                                : std::string(),
               db.skipped_lines ? fmt::format(", {} unreadable lines skipped", db.skipped_lines) : std::string());
  fmt::print("strategy {} (seed {}), budget {} per class, batches of {}\n\n", opt.strategy, opt.seed,
             opt.budget.empty() ? std::string("unlimited") : opt.budget, to.batch);

  const search::TuneOutcome o = search::tune(spec, shapes, mode, to, *evaluator, db, [&](const search::Progress& p) {
    std::string what = fmt::format("{} usable, {} pairs measured, {} reused", p.usable, p.measured, p.reused);
    if (gpu_eval) what += fmt::format(", {} compiled", gpu_eval->compiled);
    if (p.best_score) what += fmt::format("; best {:.2f} us {}", *p.best_score, p.best);
    progress.update(static_cast<int>(p.asked), static_cast<int>(p.valid), p.cls, what);
  });
  progress.clear();

  print_outcome(o, db);
  size_t evaluations = 0, tuned = 0, with_shapes = 0;
  for (const auto& co : o.classes) {
    evaluations += co.evaluations;
    if (!co.cls.shapes.empty()) ++with_shapes;
    if (co.winner) ++tuned;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("\nTUNE: {}/{} classes tuned, {} variants evaluated, {} (variant, shape) pairs measured, {} reused",
             tuned, with_shapes, evaluations, o.measured, o.reused);
  if (replay) fmt::print(", {} not in the replay file", replay->misses);
  if (gpu_eval) fmt::print(", {} compiled, {} compile errors, {} cases run", gpu_eval->compiled,
                           gpu_eval->compile_errors, gpu_eval->cases_run);
  fmt::print(", wall {:.2f} s\n", wall);

  if (opt.write_config) {
    if (spec.solution.config.empty()) throw Error("--write-config: task " + spec.name + " names no solution.config");
    const fs::path file = spec.root / spec.solution.config;
    const nlohmann::json doc = search::config_document(o, source_text);
    task::parse_config(doc, file, spec);  // what run will parse: refuse to write anything else
    write_file_atomically(file, doc.dump(2) + "\n");
    fmt::print("wrote {} ({} classes)\n", file.string(), doc["classes"].size());
  }
  return tuned == with_shapes ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
