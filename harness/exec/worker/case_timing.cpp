// The timed part of a case: every kernel it times, interleaved (measure/gpu/timer.hpp).
#include <deque>

#include <fmt/format.h>

#include "cuda/fault.hpp"
#include "exec/worker/case_inputs.hpp"
#include "exec/worker/case_runner.hpp"
#include "exec/worker/write_checks.hpp"
#include "measure/stats/launch_audit.hpp"

namespace ako::exec {

namespace {

// The launches of one timed kernel, one BoundLaunch per input set, used in turn; before each
// launch, outside the sample's window, the side's outputs in the set it is about to use are
// poisoned and its in-place buffers restored to the set's fresh contents (so every sample does
// the same work, never an in-place update of the previous sample's result).
struct Rotation {
  const CaseJob& job;
  const CaseBuffers& buffers;
  const CaseRunner::Launches& launches;   // one per set
  Side side;
  verify::SupportKernels& support;
  size_t next = 0;

  void before_launch(CUstream s) const {
    prepare_launch(job, buffers, side, static_cast<int>(next % launches.size()), support, s);
  }
  CUresult launch(CUstream s) { return launches[next++ % launches.size()]->launch(s); }
};

}  // namespace

void CaseRunner::time_kernels(const CaseJob& job, const CaseBuffers& buffers, const Launches& references,
                              const Launches& solutions, CaseResult& r) {
  // Baselines write into the reference's outputs while timed: the solution's outputs must keep
  // its own last timed launch for the re-check after timing.
  std::deque<Launches> baseline_launches;
  std::deque<Rotation> rotations;
  std::deque<measure::DeclaredLaunch> declared;
  std::vector<measure::TimedKernel> kernels;
  std::vector<int> baseline_of;   // per timed kernel: index into r.baselines, -1 reference, -2 solution

  auto add = [&](const Launches& launches, Side side, const LaunchJob* audited, std::string role,
                 std::optional<double> reference_s, int owner) {
    Rotation& rot = rotations.emplace_back(Rotation{job, buffers, launches, side, support_});
    measure::TimedKernel k;
    k.hooks.before_launch = [&rot](CUstream st) { rot.before_launch(st); };
    if (audited) k.hooks.declared = &declared.emplace_back(measure::DeclaredLaunch{audited->grid, audited->block, 1});
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

  if (job.time_reference) add(references, Side::reference, nullptr, "reference", std::nullopt, -1);
  add(solutions, Side::solution, &*job.solution, "solution", reference_s_, -2);
  for (size_t b = 0; b < job.baselines.size(); ++b) {
    if (r.baselines[b].verdict != Verdict::correct) continue;
    const CUfunction fn = modules_.function(job.baselines[b].launch.module, job.baselines[b].launch.function);
    Launches& launches = baseline_launches.emplace_back();
    const std::string role = "baseline " + job.baselines[b].name;
    for (int s = 0; s < buffers.sets(); ++s)
      launches.push_back(std::make_unique<BoundLaunch>(fn, job.baselines[b].launch, buffers.args(Side::reference, s), role));
    add(launches, Side::reference, &job.baselines[b].launch, role, std::nullopt, static_cast<int>(b));
  }

  ClockReport clock;
  std::vector<TimingStats> stats = timer_->time_interleaved(kernels, cuda_.stream(), settings_.timing, &clock);
  watchdog_.disarm();
  if (clock.probes > 0 || clock.rated_mhz > 0) r.clock = clock;
  for (size_t i = 0; i < stats.size(); ++i) {
    if (baseline_of[i] == -1) r.reference_time = std::move(stats[i]);
    else if (baseline_of[i] == -2) r.solution_time = std::move(stats[i]);
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
}

void CaseRunner::check_after_timing(const CaseJob& job, const CaseBuffers& buffers, const Launches& references,
                                    const ValidationContext& ctx, CaseResult& r) {
  *ctx.stage = "guard bands and views after timing";
  for (int s = 0; s < buffers.sets(); ++s) {
    if (auto oob = check_solution_writes(job, buffers, s, ctx)) {
      r.verdict = oob->verdict;
      r.fault = oob->fault;
      r.reason = oob->reason + fmt::format(" (during timing, input set {} of {})", s + 1, buffers.sets());
      return;
    }
  }
  if (!r.solution_time->launch_audit.empty()) {
    r.verdict = Verdict::failed;
    r.fault = "undeclared_work";
    r.reason = "undeclared GPU work while timing the solution: " + r.solution_time->launch_audit;
    return;
  }
  for (int s = 0; s < buffers.sets(); ++s) {
    *ctx.stage = fmt::format("re-checking the timed output of input set {} of {}", s + 1, buffers.sets());
    prepare_launch(job, buffers, Side::reference, s, support_, cuda_.stream());
    references[s]->launch_checked(cuda_.stream());
    cuda::check(cuStreamSynchronize(cuda_.stream()), "cuStreamSynchronize(reference, re-check)");
    verify::ErrorAccumulator acc;
    compare_units(job, buffers, Side::solution, Side::reference, s, ctx, {&acc});
    const std::string why = acc.failure_reason("solution", "reference kernel");
    if (why.empty()) continue;
    r.verdict = Verdict::incorrect;
    r.error = acc.stats();
    r.reason = fmt::format("timed output re-check (input set {} of {}, the solution's last timed launch on it): {}",
                           s + 1, buffers.sets(), why);
    return;
  }
}

}  // namespace ako::exec
