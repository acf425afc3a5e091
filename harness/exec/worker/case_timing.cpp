// The timed part of a case: every kernel it times, interleaved (measure/gpu/timer.hpp), each
// writing both sides' copies of the written storages of every input set in turn
// (exec/protocol/output_slots.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "exec/protocol/baseline_blame.hpp"
#include "exec/protocol/output_slots.hpp"
#include "exec/worker/case_inputs.hpp"
#include "exec/worker/case_runner.hpp"
#include "exec/worker/write_checks.hpp"
#include "measure/stats/launch_audit.hpp"

namespace ako::exec {

namespace {

constexpr double kSizeCopyGranule = 64 * 1024;   // bytes; the --size-copy copy is whole granules

using SlotLaunches = CaseRunner::SlotLaunches;

// One kernel bound to every slot: per input set, one launch per output copy, each with the
// addresses of that copy's side (its out and inout storages, and the views inside them).
SlotLaunches bind_slots(CUfunction fn, const LaunchJob& launch, const CaseBuffers& buffers, const std::string& role) {
  SlotLaunches out(static_cast<size_t>(buffers.sets()));
  for (int s = 0; s < buffers.sets(); ++s)
    for (int c = 0; c < 2; ++c)
      out[s][c] = std::make_unique<BoundLaunch>(fn, launch, buffers.args(side_of_copy(c), s), role);
  return out;
}

// The launches of one timed kernel, slot after slot (timed_output_slot); before each launch,
// outside the sample's window, the copies of the slot it is about to write are prepared: out
// storages and out views poisoned, inout storages restored from the set's pristine copy (so
// every sample does the same work, never an in-place update of an earlier sample's result).
struct Rotation {
  const CaseJob& job;
  const CaseBuffers& buffers;
  const SlotLaunches& launches;
  bool solution;
  OutputLedger& ledger;
  verify::SupportKernels& support;
  uint64_t* sequence = nullptr;   // launches of every kernel of the case so far (the sample log's order)
  uint64_t next = 0;
  struct Launched {
    OutputSlot slot;
    uint64_t sequence = 0;
  };
  std::vector<Launched> history;   // every launch, warm-up included (the samples are the last ones)
  std::vector<double> samples_us;  // filled by the timer when the sample log is on

  OutputSlot slot() const { return timed_output_slot(next, buffers.sets(), solution); }
  void before_launch(CUstream s) const {
    const OutputSlot o = slot();
    prepare_launch(job, buffers, side_of_copy(o.copy), o.set, support, s);
  }
  CUresult launch(CUstream s) {
    const OutputSlot o = slot();
    ++next;
    ledger.wrote(o, solution);
    history.push_back({o, (*sequence)++});
    return launches[o.set][o.copy]->launch(s);
  }
};

// AKO_SAMPLE_LOG=DIR: every sample of every timed kernel of the case, with the input set and
// output copy it used and its place in the launch order, as DIR/case-INDEX.json (for studying
// the timing method; off by default).
void write_sample_log(const CaseJob& job, int sets, const std::deque<Rotation>& rotations,
                      const std::vector<std::string>& roles) {
  const char* dir = std::getenv("AKO_SAMPLE_LOG");
  if (!dir || !*dir) return;
  nlohmann::json kernels = nlohmann::json::array();
  for (size_t k = 0; k < rotations.size(); ++k) {
    const Rotation& rot = rotations[k];
    const size_t n = rot.samples_us.size();
    if (n > rot.history.size()) continue;
    nlohmann::json samples = nlohmann::json::array();
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(rot.samples_us[i])) continue;   // the untimed launch that opens a sampling pass
      const Rotation::Launched& l = rot.history[rot.history.size() - n + i];
      samples.push_back({rot.samples_us[i], l.slot.set, l.slot.copy, l.sequence});
    }
    kernels.push_back({{"role", roles[k]}, {"launches", rot.history.size()}, {"samples", samples}});
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream(std::filesystem::path(dir) / fmt::format("case-{}.json", job.index))
      << nlohmann::json{{"index", job.index}, {"label", job.label}, {"sets", sets}, {"kernels", kernels}}.dump() << "\n";
}

}  // namespace

// The solution's last timed output of every set: first the contents outside its writable views
// in the copy it wrote (against the set's pristine copy), then every compared unit against a
// fresh reference run on the same inputs, written into the set's other copy.
TimedRecheck CaseRunner::recheck_timed_outputs(const CaseJob& job, const CaseBuffers& buffers,
                                               const SlotLaunches& reference, OutputLedger& ledger,
                                               const ValidationContext& ctx) {
  TimedRecheck out;
  out.done = true;
  for (int s = 0; s < buffers.sets(); ++s) {
    const OutputLedger::SolutionOutput sol = ledger.solution_output(s);
    if (sol.state == OutputLedger::State::never_written) continue;   // no timed output here
    if (sol.state == OutputLedger::State::overwritten)
      throw Error(fmt::format("the solution's last timed output of input set {} of {} was overwritten before its "
                              "re-check (a timer that did not report the solution's last sample)",
                              s + 1, buffers.sets()));
    const Side got = side_of_copy(sol.copy);
    *ctx.stage = fmt::format("checking the views of the timed output of input set {} of {}", s + 1, buffers.sets());
    if ((out.finding = check_outside_views(job, buffers, got, s, ctx))) {
      out.finding->reason += fmt::format(" (during timing, input set {} of {})", s + 1, buffers.sets());
      return out;
    }
    const OutputSlot ref{s, 1 - sol.copy};
    const Side want = side_of_copy(ref.copy);
    *ctx.stage = fmt::format("re-checking the timed output of input set {} of {}", s + 1, buffers.sets());
    prepare_launch(job, buffers, want, s, support_, cuda_.stream());
    reference[ref.set][ref.copy]->launch_checked(cuda_.stream());
    ledger.wrote(ref, false);
    cuda::check(cuStreamSynchronize(cuda_.stream()), "cuStreamSynchronize(reference, re-check)");
    verify::ErrorAccumulator acc;
    compare_units(job, buffers, got, want, s, ctx, {&acc});
    const std::string why = acc.failure_reason("solution", "reference kernel");
    if (why.empty()) continue;
    out.error = acc.stats();
    out.reason = fmt::format("timed output re-check (input set {} of {}, the solution's last timed launch on it): {}",
                             s + 1, buffers.sets(), why);
    return out;
  }
  return out;
}

TimedRecheck CaseRunner::time_kernels(const CaseJob& job, const CaseBuffers& buffers, const ValidationContext& ctx,
                                      CaseResult& r) {
  OutputLedger ledger(buffers.sets());
  std::deque<SlotLaunches> slot_launches;
  std::deque<Rotation> rotations;
  std::deque<measure::DeclaredLaunch> declared;
  std::vector<measure::TimedKernel> kernels;
  std::vector<int> baseline_of;   // per timed kernel: index into r.baselines, -1 reference, -2 solution, -3 size copy
  std::vector<std::string> roles;
  uint64_t sequence = 0;
  const char* log_dir = std::getenv("AKO_SAMPLE_LOG");
  const bool sample_log = log_dir && *log_dir;

  // The solution's re-check runs as soon as it has taken its last sample (the others may go on
  // sampling and write over its outputs). Only CUDA faults may leave the timer: any other error
  // would read as a CUPTI failure there, so it waits until the timer returns. Should the timer
  // time the kernels again (CUPTI failing mid-way, the events fallback), a failed re-check stays.
  const SlotLaunches& reference = slot_launches.emplace_back(
      bind_slots(modules_.function(job.reference.module, job.reference.function), job.reference, buffers, "reference"));
  TimedRecheck recheck;
  std::exception_ptr recheck_error;
  auto run_recheck = [&](CUstream) {
    watchdog_.disarm();
    const std::string stage = *ctx.stage;
    try {
      TimedRecheck now = recheck_timed_outputs(job, buffers, reference, ledger, ctx);
      if (!recheck.finding && recheck.reason.empty()) recheck = std::move(now);
    } catch (const cuda::CudaFault&) {
      throw;
    } catch (...) {
      recheck_error = std::current_exception();
    }
    *ctx.stage = stage;
  };

  auto add = [&](const SlotLaunches& launches, bool solution, const LaunchJob* audited, std::string role,
                 std::optional<double> reference_s, int owner) {
    Rotation& rot =
        rotations.emplace_back(Rotation{job, buffers, launches, solution, ledger, support_, &sequence, 0, {}, {}});
    roles.push_back(role);
    measure::TimedKernel k;
    k.hooks.before_launch = [&rot](CUstream st) { rot.before_launch(st); };
    k.hooks.launch_cycle = 2 * buffers.sets();
    if (sample_log) k.hooks.raw_samples = &rot.samples_us;
    if (audited) k.hooks.declared = &declared.emplace_back(measure::DeclaredLaunch{audited->grid, audited->block, 1});
    if (solution) k.hooks.after_last_sample = run_recheck;
    // Re-armed at every launch; the deadline covers the launch and the sample around it.
    const double limit_s = launch_limit_s(settings_.launch_limit, reference_s);
    const std::string watched = fmt::format("the {}'s launch (timing; per-launch limit {})", role,
                                            describe_launch_limit(settings_.launch_limit, reference_s));
    k.launch = [this, &rot, limit_s, watched](CUstream st) {
      watchdog_.arm(limit_s, watched);
      return rot.launch(st);
    };
    kernels.push_back(std::move(k));
    baseline_of.push_back(owner);
  };

  if (job.time_reference) add(reference, false, nullptr, "reference", std::nullopt, -1);
  const SlotLaunches& solution = slot_launches.emplace_back(
      bind_slots(modules_.function(job.solution->module, job.solution->function), *job.solution, buffers, "solution"));
  add(solution, true, &*job.solution, "solution", reference_s_, -2);
  for (size_t b = 0; b < job.baselines.size(); ++b) {
    if (r.baselines[b].verdict != Verdict::correct) continue;
    const std::string role = baseline_role(job.baselines[b].name);
    const SlotLaunches& launches = slot_launches.emplace_back(bind_slots(
        modules_.function(job.baselines[b].launch.module, job.baselines[b].launch.function), job.baselines[b].launch,
        buffers, role));
    add(launches, false, &job.baselines[b].launch, role, std::nullopt, static_cast<int>(b));
  }

  // --size-copy: a copy of half the case's bytes (so its bytes read and written), between two
  // buffers of its own; untouched by the output slots, so nothing to prepare between samples.
  // The size is rounded to the nearest whole granule: on the H200 a copy with a 3 KB tail past
  // whole MiBs took 2.3-4 us more than one without (the driver adds an operation for the tail),
  // a cost of the copy call, not of the bytes. The rate is compared, so the rounding cancels.
  cuda::DeviceBuffer copy_src, copy_dst;
  if (job.time_size_copy && job.bytes > 0) {
    const size_t granules = std::max<size_t>(1, static_cast<size_t>(std::llround(job.bytes / 2 / kSizeCopyGranule)));
    const size_t half = granules * kSizeCopyGranule;
    r.size_copy_bytes = 2.0 * static_cast<double>(half);
    copy_src = cuda::DeviceBuffer(half, "size-copy source");
    copy_dst = cuda::DeviceBuffer(half, "size-copy destination");
    cuda::check(cuMemsetD8Async(copy_src.get(), 0, half, cuda_.stream()), "cuMemsetD8Async(size-copy source)");
    measure::TimedKernel k;
    k.kernel_record = false;
    k.launch = [src = copy_src.get(), dst = copy_dst.get(), half](CUstream st) {
      return cuMemcpyDtoDAsync(dst, src, half, st);
    };
    roles.push_back("size-copy");   // last, after every rotation: the sample log leaves it out
    kernels.push_back(std::move(k));
    baseline_of.push_back(-3);
  }

  ClockReport clock;
  std::vector<TimingStats> stats = timer_->time_interleaved(kernels, cuda_.stream(), settings_.timing, &clock);
  watchdog_.disarm();
  if (recheck_error) std::rethrow_exception(recheck_error);
  // Every timer reports the last sample; should one not, the ledger still finds the outputs.
  if (!recheck.done) recheck = recheck_timed_outputs(job, buffers, reference, ledger, ctx);
  *ctx.stage = "timing";
  write_sample_log(job, buffers.sets(), rotations, roles);
  if (clock.probes > 0 || clock.rated_mhz > 0) r.clock = clock;
  for (size_t i = 0; i < stats.size(); ++i) {
    if (baseline_of[i] == -1) r.reference_time = std::move(stats[i]);
    else if (baseline_of[i] == -2) r.solution_time = std::move(stats[i]);
    else if (baseline_of[i] == -3) r.size_copy_time = std::move(stats[i]);
    else {
      BaselineResult& b = r.baselines[static_cast<size_t>(baseline_of[i])];
      if (!stats[i].launch_audit.empty()) {
        b.verdict = Verdict::failed;
        b.fault = "undeclared_work";
        b.reason = "undeclared GPU work while timing the baseline: " + stats[i].launch_audit;
      }
      b.time = std::move(stats[i]);
    }
  }
  return recheck;
}

void CaseRunner::check_after_timing(const CaseBuffers& buffers, const ValidationContext& ctx,
                                    const TimedRecheck& recheck, CaseResult& r) {
  *ctx.stage = "guard bands after timing";
  for (int s = 0; s < buffers.sets(); ++s) {
    // Every copy: the solution wrote into both sides' copies while timed.
    if (auto oob = check_all_guards(buffers, s, ctx)) {
      r.verdict = oob->verdict;
      r.fault = oob->fault;
      r.reason = oob->reason + fmt::format(" (during timing, input set {} of {})", s + 1, buffers.sets());
      return;
    }
  }
  if (recheck.finding) {
    r.verdict = recheck.finding->verdict;
    r.fault = recheck.finding->fault;
    r.reason = recheck.finding->reason;
    return;
  }
  if (!r.solution_time->launch_audit.empty()) {
    r.verdict = Verdict::failed;
    r.fault = "undeclared_work";
    r.reason = "undeclared GPU work while timing the solution: " + r.solution_time->launch_audit;
    return;
  }
  if (recheck.reason.empty()) return;
  r.verdict = Verdict::incorrect;
  r.error = recheck.error;
  r.reason = recheck.reason;
}

}  // namespace ako::exec
