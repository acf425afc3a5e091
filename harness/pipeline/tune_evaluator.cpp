#include "pipeline/tune_evaluator.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <ctime>
#include <set>

#include <fmt/format.h>

#include "pipeline/drift_sentinel.hpp"
#include "pipeline/run_plan.hpp"
#include "pipeline/verdict.hpp"
#include "pipeline/workspace.hpp"
#include "common/error.hpp"
#include "common/scratch_folder.hpp"
#include "common/utc_time.hpp"
#include "search/split_evaluator.hpp"
#include "task/cases.hpp"

namespace ako::pipeline {

namespace fs = std::filesystem;

namespace {

const char* worst_verdict(const char* a, const std::string& b) {
  auto rank = [](const std::string& v) { return v == "failed" ? 3 : v == "incorrect" ? 2 : v == "skipped" ? 1 : 0; };
  static const char* names[] = {"correct", "skipped", "incorrect", "failed"};
  return names[std::max(rank(a), rank(b))];
}

struct Variant {
  search::EvalRequest req;
  std::vector<task::Case> cases;
  jit::CompiledModule module;
  int registers = -1;
  std::string error;                     // not measurable: invalid or does not compile
  // Not compiled because the stop held first: nothing is recorded for it.
  bool not_started() const { return jit::compile_fault(error) == "compile_not_started"; }
};

struct GpuBatch : search::PreparedBatch {
  std::vector<Variant> variants;
  BuiltKernels base;                     // reference + support kernels
};

// One job for the batch: every compiled variant's cases, same inputs per case label.
struct BatchJob {
  exec::WorkerJob job;
  std::vector<std::pair<size_t, size_t>> owner;  // job case -> (variant, case)
  std::vector<std::string> claimed;              // labels whose reference this job times first
  std::vector<bool> claims;                      // by job case: it times its label's reference first
};

// A job case that is no case of the batch: the probe (drift_sentinel.hpp).
constexpr size_t kProbeCase = static_cast<size_t>(-1);

// Drift sentinels (drift_sentinel.hpp): in each segment of the job's cases, the case whose label's
// reference is recorded and fastest times it again; a segment with no recorded label (the first
// batch of a class) gets a copy of `probe` (a case of an earlier batch, label recorded) at its
// end instead. `to_batch` (job case -> batch job case) grows with the probes (kProbeCase).
// Returns the sentinels' job indices.
std::vector<size_t> add_sentinels(exec::WorkerJob& job, std::vector<size_t>& to_batch,
                                  const search::ReferenceTimes& references, const std::optional<exec::CaseJob>& probe) {
  std::vector<exec::CaseJob> cases;
  std::vector<size_t> map, sentinels;
  for (size_t begin = 0; begin < job.cases.size(); begin += kSentinelSegment) {
    const size_t end = std::min(begin + kSentinelSegment, job.cases.size());
    std::vector<std::optional<double>> recorded;
    for (size_t i = begin; i < end; ++i) {
      const exec::CaseJob& c = job.cases[i];
      recorded.push_back(!c.time_reference && c.time ? references.time_us(c.label) : std::nullopt);
      cases.push_back(c);
      cases.back().index = static_cast<int>(cases.size() - 1);
      map.push_back(to_batch[i]);
    }
    const std::vector<size_t> pick = choose_sentinels(recorded, recorded.size());
    if (!pick.empty()) {
      const size_t at = cases.size() - (end - begin) + pick.front();
      cases[at].time_reference = true;
      sentinels.push_back(at);
    } else if (probe) {
      cases.push_back(*probe);
      cases.back().index = static_cast<int>(cases.size() - 1);
      cases.back().time_reference = true;
      map.push_back(kProbeCase);
      sentinels.push_back(cases.size() - 1);
    }
  }
  job.cases = std::move(cases);
  to_batch = std::move(map);
  return sentinels;
}

BatchJob batch_job(const GpuBatch& batch, const GpuEvaluatorOptions& opt,
                   search::ReferenceTimes& references) {
  const auto& vs = batch.variants;
  exec::TimingOptions timing;
  timing.hot = opt.hot;
  timing.max_time_s = opt.max_time_s;
  timing.warmup_ms = opt.warmup_ms;
  BatchJob out;
  exec::WorkerJob& job = out.job;
  for (size_t i = 0; i < vs.size(); ++i) {
    if (!vs[i].error.empty()) continue;
    BuiltKernels bk = batch.base;
    bk.modules[vs[i].cases.front().solution->file.string()] = vs[i].module;
    exec::WorkerJob vj = make_worker_job(vs[i].cases, bk, opt.trials, opt.seed, timing, true,
                                         opt.build.compile.cache_dir);
    if (job.cases.empty()) {
      job.support = vj.support;
      job.timing = vj.timing;
      job.cache_dir = vj.cache_dir;
    }
    for (size_t c = 0; c < vj.cases.size(); ++c) {
      vj.cases[c].index = static_cast<int>(job.cases.size());
      // Validation against the reference always happens; timing it only once per label.
      vj.cases[c].time_reference = references.claim(vj.cases[c].label);
      if (vj.cases[c].time_reference) out.claimed.push_back(vj.cases[c].label);
      out.claims.push_back(vj.cases[c].time_reference);
      out.owner.emplace_back(i, c);
      job.cases.push_back(std::move(vj.cases[c]));
    }
  }
  return out;
}

// One record per (variant, shape): the worst verdict and the sum of the solution IQMs over
// the variant's cases of that shape.
search::DbRecord shape_record(const Variant& v, const task::ShapeSpec* s, const std::vector<CaseResult>& results,
                              const search::ReferenceTimes& references) {
  search::DbRecord rec;
  rec.shape = s->name;
  rec.params = v.req.params;
  rec.registers = v.registers;
  rec.recorded_at = utc_now();
  const char* verdict = "correct";
  if (!v.error.empty()) {
    verdict = "failed";
    rec.reason = v.error;
  }
  bool reference_known = true;
  for (size_t c = 0; c < v.cases.size() && v.error.empty(); ++c) {
    if (v.cases[c].shape != s) continue;
    const CaseResult& r = results[c];
    search::DbCase dc{v.cases[c].label(), verdict_name(r.verdict), 0, 0, 0};
    if (r.solution_time) {
      dc.time_us = r.solution_time->iqm_us;
      dc.ci_rel = r.solution_time->ci_rel;
    }
    dc.reference_us = references.time_us(dc.label).value_or(0);
    reference_known = reference_known && dc.reference_us > 0;
    verdict = worst_verdict(verdict, dc.verdict);
    if (dc.verdict != "correct" && rec.reason.empty()) rec.reason = dc.label + ": " + r.reason;
    if (dc.verdict == "correct" && dc.time_us <= 0) {
      verdict = worst_verdict(verdict, "skipped");
      if (rec.reason.empty()) rec.reason = dc.label + ": not timed";
    }
    rec.time_us += dc.time_us;
    rec.reference_us += dc.reference_us;
    rec.ci_rel = std::max(rec.ci_rel, dc.ci_rel);
    rec.cases.push_back(std::move(dc));
  }
  if (!reference_known) rec.reference_us = 0;
  rec.verdict = verdict;
  return rec;
}

}  // namespace

GpuEvaluator::GpuEvaluator(const task::TaskSpec& spec, GpuEvaluatorOptions opt) : spec_(spec), opt_(std::move(opt)) {}

void GpuEvaluator::add_cache_notes(const std::vector<std::string>& notes) {
  // Once per kind: "kernel cache DIR cannot be written" is said for the first batch only.
  const auto kind = [](const std::string& n) { return n.substr(0, n.find(';')); };
  const std::lock_guard<std::mutex> lock(notes_mutex_);
  for (const auto& n : notes)
    if (std::none_of(cache_notes_.begin(), cache_notes_.end(), [&](const std::string& o) { return kind(o) == kind(n); }))
      cache_notes_.push_back(n);
}

void GpuEvaluator::add_drift_note(const std::string& note) {
  const std::lock_guard<std::mutex> lock(notes_mutex_);
  drift_notes_.push_back(note);
}

std::vector<std::string> GpuEvaluator::drift_notes() const {
  const std::lock_guard<std::mutex> lock(notes_mutex_);
  return drift_notes_;
}

SentinelTally GpuEvaluator::sentinel_tally() const {
  const std::lock_guard<std::mutex> lock(notes_mutex_);
  return sentinel_tally_;
}

std::vector<std::string> GpuEvaluator::cache_notes() const {
  const std::lock_guard<std::mutex> lock(notes_mutex_);
  return cache_notes_;
}

std::vector<search::DbRecord> GpuEvaluator::evaluate(const std::vector<search::EvalRequest>& batch) {
  return measure(*prepare(batch));
}

// Helper thread: touches only the spec (read-only), its own batch, the disk cache and the
// atomic counters.
std::unique_ptr<search::PreparedBatch> GpuEvaluator::prepare(std::vector<search::EvalRequest> batch) {
  auto out = std::make_unique<GpuBatch>();
  out->requests = std::move(batch);
  std::vector<task::Case> reference_cases;
  for (const auto& req : out->requests) {
    Variant v{req, {}, {}, -1, {}};
    task::CaseFilter f;
    for (const auto* s : req.shapes) f.shapes.push_back(s->name);
    f.dtypes = opt_.dtypes;
    try {
      v.cases = task::expand_cases(spec_, f, req.params, false);
    } catch (const Error& e) {
      v.error = std::string("invalid: ") + e.what();  // the space should have caught it
    }
    for (auto c : v.cases) {
      c.solution.reset();
      reference_cases.push_back(std::move(c));
    }
    out->variants.push_back(std::move(v));
  }

  {
    // The lanes of a --gpus run prepare their shares at once and all need the same reference and
    // support kernels: one builds them, the others then find them in the cache (and two threads
    // of one process never compile the same cache entry at the same time).
    static std::mutex base_build;
    const std::lock_guard<std::mutex> lock(base_build);
    out->base = build_kernels(reference_cases, opt_.build);
  }
  add_cache_notes(out->base.cache_notes);
  if (!out->base.errors.empty())
    throw Error("the reference or support kernels do not compile:\n" + out->base.errors.front());
  std::vector<jit::CompileRequest> reqs;
  std::vector<size_t> req_variant;
  for (size_t i = 0; i < out->variants.size(); ++i) {
    const Variant& v = out->variants[i];
    if (!v.error.empty() || v.cases.empty()) continue;
    jit::CompileRequest r;
    r.source = v.cases.front().solution->file;
    r.display_name = fs::relative(r.source, spec_.root).string();
    std::set<std::string> names;
    for (const auto& c : v.cases) names.insert(c.solution->name_expression);
    r.name_expressions.assign(names.begin(), names.end());
    r.arch = opt_.build.arch;
    r.include_roots = task_include_roots(spec_.root);
    reqs.push_back(std::move(r));
    req_variant.push_back(i);
  }
  jit::CompileOptions solution_compile = opt_.build.compile;
  solution_compile.stop = compile_stop_;
  const jit::BatchResult br = jit::compile_all(reqs, solution_compile);
  add_cache_notes(br.notes);
  for (size_t k = 0; k < reqs.size(); ++k) {
    Variant& v = out->variants[req_variant[k]];
    const std::string& e = br.errors[k];
    v.error = e;
    if (v.not_started()) {
      ++not_started;
      continue;
    }
    if (!e.empty()) {
      ++compile_errors;
      // A compile killed at the limits says so first ("compile_timeout: FILE: ..."); any other
      // error is the log's first two lines.
      v.error = jit::compile_fault(e) == "compile_error" ? "compile error: " + e.substr(0, e.find('\n', e.find('\n') + 1))
                                                         : e.substr(0, e.find('\n'));
      continue;
    }
    ++compiled;
    v.module = br.modules[k];
    for (const auto& [lowered, res] : v.module.resources) v.registers = std::max(v.registers, res.registers);
    // Before any GPU work, as in `ako run`: a refused variant is recorded, never measured.
    v.error = static_refusal(check_compiled_module(v.module, reqs[k].display_name, opt_.build.allow));
    if (!v.error.empty()) ++refused_static;
  }
  return out;
}

namespace {

// --compile-only: a variant that compiled and passed the static checks is "compiled" on each of
// its shapes (no cases ran, no time); one that did not is failed, as in a measured tune.
std::vector<search::DbRecord> compile_only_records(const std::vector<Variant>& vs, const std::string& gpu_uuid) {
  std::vector<search::DbRecord> out;
  for (const Variant& v : vs) {
    if (v.not_started()) continue;  // never compiled: a resumed tune asks it again
    for (const auto* s : v.req.shapes) {
      search::DbRecord rec;
      rec.shape = s->name;
      rec.params = v.req.params;
      rec.registers = v.registers;
      rec.recorded_at = utc_now();
      rec.verdict = v.error.empty() ? search::kCompiledVerdict : "failed";
      rec.reason = v.error;
      rec.gpu_uuid = gpu_uuid;
      out.push_back(std::move(rec));
    }
  }
  return out;
}

// A case the worker finished on its own account: not skipped (never run) and not ended by the
// watchdog (hang, crash), which on a lane that then gave up may be the GPU's doing, not the variant's.
bool finished_by_worker(const CaseResult& r) {
  return r.verdict != Verdict::skipped && r.fault != "worker_crash" && r.fault != "timeout";
}

}  // namespace

exec::WorkerRun GpuEvaluator::run_worker_job(const exec::WorkerJob& job) {
  exec::ClientOptions copt;
  if (!opt_.run_worker) copt.worker_exe = worker_executable();
  if (opt_.pin_to_gpu) copt.extra_env.push_back("CUDA_VISIBLE_DEVICES=" + opt_.gpu_uuid);
  copt.case_timeout_s = opt_.case_timeout_s;
  copt.scratch_dir = scratch_path("tune", opt_.lane_index);
  const ScratchFolder scratch(copt.scratch_dir);   // marked as this process's (common/scratch_folder.hpp)
  exec::ClientCallbacks cb;
  cb.on_device = [&](const DeviceInfo& d) { device = d; };
  cb.on_begin = [&](int i) {
    if (on_case) on_case(job.cases[i].label, "validating");
  };
  cb.on_phase = [&](int i, const std::string& phase) {
    if (on_case && phase != "validate") on_case(job.cases[i].label, phase == "validate_baselines" ? "validating baselines" : "timing");
  };
  exec::WorkerRun run = opt_.run_worker ? opt_.run_worker(job, copt, cb) : exec::run_worker(job, copt, cb);
  std::error_code ec;
  fs::remove_all(copt.scratch_dir, ec);
  if (run.device) device = run.device;
  cases_run += run.results.size();
  return run;
}

void GpuEvaluator::remeasure_slow_windows(exec::WorkerJob current, std::vector<size_t> to_batch,
                                          std::vector<SentinelReading> readings, const std::vector<bool>& claims,
                                          const TakeResults& take, std::string& lost) {
  for (int attempt = 1; lost.empty(); ++attempt) {
    std::vector<bool> again = drifted_cases(current.cases.size(), readings, kSentinelSegment, kDriftTolerance);
    for (size_t i = 0; i < again.size(); ++i) again[i] = again[i] && to_batch[i] != kProbeCase;  // probes: read only
    const size_t n_again = static_cast<size_t>(std::count(again.begin(), again.end(), true));
    for (const auto& r : readings)
      if (r.measured_us && *r.measured_us < r.recorded_us * (1 - kDriftTolerance)) {
        // The first timing was the slow one, and the batch that took it is recorded already.
        references.lower(r.label, *r.measured_us);
        add_drift_note(fmt::format("{}, {}: the reference of '{}' timed {:.2f} us against {:.2f} us first recorded "
                                   "({:.2f}x): it was first timed in a slow window, and the variants measured with "
                                   "it then may read slow (a tune into a fresh --db measures them again)",
                                   opt_.gpu_uuid, utc_now(), r.label, *r.measured_us, r.recorded_us,
                                   *r.measured_us / r.recorded_us));
      }
    if (n_again == 0) return;
    const std::string worst = describe_worst_drift(readings, kDriftTolerance);
    if (attempt > kMaxRemeasures) {
      add_drift_note(fmt::format("{}, {}: {}: still slower after {} re-measures; {} cases keep what the last "
                                 "measured",
                                 opt_.gpu_uuid, utc_now(), worst, kMaxRemeasures, n_again));
      return;
    }
    exec::WorkerJob sub = current;
    sub.cases.clear();
    std::vector<size_t> sub_to_batch;
    for (size_t i = 0; i < current.cases.size(); ++i) {
      if (!again[i]) continue;
      exec::CaseJob c = current.cases[i];
      c.index = static_cast<int>(sub.cases.size());
      c.time_reference = claims[to_batch[i]];  // a reference first timed in the window: again
      sub.cases.push_back(std::move(c));
      sub_to_batch.push_back(to_batch[i]);
    }
    const double pause_s = kRemeasurePauseS[attempt - 1];
    add_drift_note(fmt::format("{}, {}: {}: the GPU was slower for a while; {} cases measured again{}", opt_.gpu_uuid,
                               utc_now(), worst, n_again,
                               pause_s > 0 ? fmt::format(" after a {:.0f} s pause", pause_s) : std::string()));
    if (pause_s > 0) {
      if (opt_.pause) opt_.pause(pause_s);
      else std::this_thread::sleep_for(std::chrono::duration<double>(pause_s));
    }
    ++drift_windows;
    remeasured += sub.cases.size();
    const std::vector<size_t> sentinels = add_sentinels(sub, sub_to_batch, references, probe_);
    const exec::WorkerRun run = run_worker_job(sub);
    readings = take(run, sub, sub_to_batch, sentinels);
    if (!run.fatal.empty() && opt_.lane) lost = run.fatal;
    current = std::move(sub);
    to_batch = std::move(sub_to_batch);
  }
}

std::vector<search::DbRecord> GpuEvaluator::measure(search::PreparedBatch& prepared) {
  auto& batch = dynamic_cast<GpuBatch&>(prepared);
  auto& vs = batch.variants;
  if (opt_.compile_only) return compile_only_records(vs, opt_.gpu_uuid);
  BatchJob bj = batch_job(batch, opt_, references);
  std::string lost;  // a lane's worker gave up (WorkerRun::fatal): its unfinished variants go elsewhere
  std::vector<std::vector<CaseResult>> results(vs.size());
  for (size_t i = 0; i < vs.size(); ++i) results[i].resize(vs[i].cases.size());

  // The run's results into `results` (`to_batch`: the job's case -> the batch job's); the claimed
  // references settled (again when a slow window's cases are measured again), the sentinels'
  // readings returned; the next batch's probe: a case whose recorded reference is fastest.
  std::optional<exec::CaseJob> next_probe;
  double next_probe_us = 0;
  bool probe_read_nothing = false;
  auto take = [&](const exec::WorkerRun& run, const exec::WorkerJob& job, const std::vector<size_t>& to_batch,
                  const std::vector<size_t>& sentinels) {
    const double copy_bandwidth_gbs = device ? device->copy_bandwidth_gbs : 0;
    const int total = static_cast<int>(job.cases.size());
    std::vector<SentinelReading> readings;
    for (const auto& r : run.results) {
      if (r.index < 0 || r.index >= total) continue;
      const size_t k = to_batch[static_cast<size_t>(r.index)];
      const std::string& label = job.cases[r.index].label;
      if (k != kProbeCase) {
        auto [vi, ci] = bj.owner[k];
        // The verdict rules `ako run` applies (pipeline/verdict.hpp), on the case's own record.
        results[vi][ci] = case_result_skeleton(vs[vi].cases[ci], static_cast<int>(ci));
        settle_case(results[vi][ci], r, copy_bandwidth_gbs);
        if (bj.claims[k])
          references.settle(label, r.reference_time ? std::optional<double>(r.reference_time->iqm_us) : std::nullopt);
        const auto recorded = references.time_us(label);
        if (results[vi][ci].verdict == Verdict::correct && recorded && (!next_probe || *recorded < next_probe_us)) {
          next_probe = job.cases[r.index];
          next_probe_us = *recorded;
        }
      }
      if (std::find(sentinels.begin(), sentinels.end(), static_cast<size_t>(r.index)) != sentinels.end()) {
        SentinelReading reading{static_cast<size_t>(r.index), label, references.time_us(label).value_or(0), {}};
        if (r.reference_time && r.reference_time->iqm_us > 0) reading.measured_us = r.reference_time->iqm_us;
        if (k == kProbeCase && !reading.measured_us) probe_read_nothing = true;
        {
          const std::lock_guard<std::mutex> lock(notes_mutex_);
          sentinel_tally_.add(reading, k == kProbeCase, utc_now());
        }
        if (reading.recorded_us > 0) readings.push_back(std::move(reading));
      }
    }
    return readings;
  };

  if (!bj.job.cases.empty()) {
    std::vector<size_t> to_batch(bj.job.cases.size());
    for (size_t i = 0; i < to_batch.size(); ++i) to_batch[i] = i;
    std::vector<size_t> sentinels = add_sentinels(bj.job, to_batch, references, probe_);
    const exec::WorkerRun run = run_worker_job(bj.job);
    std::vector<SentinelReading> readings = take(run, bj.job, to_batch, sentinels);
    for (const auto& label : bj.claimed)  // a case the worker never reported
      if (!references.time_us(label)) references.settle(label, std::nullopt);
    if (!run.fatal.empty() && opt_.lane) lost = run.fatal;
    else if (!run.fatal.empty() && run.results.empty()) throw Error("the worker could not run: " + run.fatal);

    remeasure_slow_windows(bj.job, std::move(to_batch), std::move(readings), bj.claims, take, lost);

    // The probe stays the tune's fastest recorded reference, where a delay added per launch
    // shows most; taken from the last batch alone it followed that batch's shapes (on two H200s,
    // 2026-11-29 16:29 UTC, a wan13b case of 105 us probed a batch whose last 126 ltx-video cases
    // read 7 us slow, and nothing was noticed; 7 us is 6.7% of 105, so why is not established).
    const std::optional<double> probe_us = probe_ ? references.time_us(probe_->label) : std::nullopt;
    if (next_probe && (!probe_us || probe_read_nothing || next_probe_us < *probe_us)) {
      probe_ = std::move(next_probe);
      probe_->time_reference = true;
    }
  }

  std::vector<search::DbRecord> out;
  for (size_t i = 0; i < vs.size(); ++i) {
    const Variant& v = vs[i];
    if (v.not_started()) continue;  // never compiled: a resumed tune asks it again
    if (!lost.empty() && !std::all_of(results[i].begin(), results[i].end(), finished_by_worker)) continue;
    bool all_correct = v.error.empty(), all_timed = v.error.empty();
    for (const auto* s : v.req.shapes) {
      search::DbRecord rec = shape_record(v, s, results[i], references);
      rec.gpu_uuid = opt_.gpu_uuid;
      all_correct = all_correct && rec.verdict != "incorrect" && rec.verdict != "failed";
      all_timed = all_timed && rec.correct();
      out.push_back(std::move(rec));
    }
    if (v.error.empty()) ++validated;
    if (v.error.empty() && all_correct) ++correct;
    if (all_timed) ++timed;
  }
  if (!lost.empty()) throw search::LaneLost("the worker on " + opt_.gpu_uuid + " gave up: " + lost, std::move(out));
  return out;
}

}  // namespace ako::pipeline
