#include "exec/worker/case_runner.hpp"

#include <cstdlib>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "exec/protocol/baseline_blame.hpp"
#include "exec/protocol/oracle_blame.hpp"
#include "exec/protocol/reference_blame.hpp"
#include "exec/protocol/verdict_reasons.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/case_inputs.hpp"
#include "exec/worker/oracle_check.hpp"
#include "exec/worker/precision_check.hpp"
#include "exec/worker/validation.hpp"

namespace ako::exec {

namespace {

constexpr int kExitStickyFault = 3;   // worker_main.cpp: the parent starts a fresh worker

// The fault in words, first in the reason, so a reader sees what happened before the CUDA detail.
std::string fault_words(const std::string& fault) {
  if (fault == "illegal_address") return "illegal address (out-of-bounds or wild pointer access)";
  if (fault == "misaligned") return "misaligned address";
  if (fault == "trap") return "trap (the kernel aborted: __trap, assert or another launch failure)";
  if (fault == "illegal_instruction") return "illegal instruction";
  if (fault == "out_of_resources") return "out of resources (too many registers or threads for the launch)";
  if (fault == "invalid_value") return "invalid launch (block, grid or shared memory out of range)";
  if (fault == "timeout") return "timeout";
  if (fault == "launch_failed") return "launch failed";
  return "CUDA error";
}

// A failed result whose fault is the reference's or the oracle's is that kernel's (the case skipped).
void blame_by_role(CaseResult& r, const std::string& kind, const std::string& role, const std::string& fault,
                   const std::string& what) {
  if (charged_to_reference(kind, role)) blame_reference(r, fault, what);
  if (charged_to_oracle(role)) blame_oracle(r, kind, fault, what);
}

}  // namespace

CaseRunner::CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
                       measure::Timer* timer, const RunnerSettings& settings, const EventWriter& events)
    : cuda_(cuda), modules_(modules), support_(support), timer_(timer), settings_(settings), events_(events),
      watchdog_([this](const std::string& what, double limit_s, const std::string& role) {
        on_launch_timeout(what, limit_s, role);
      }) {}

void CaseRunner::on_launch_timeout(const std::string& what, double limit_s, const std::string& role) {
  const std::string reason = fmt::format("timeout: no progress for {:g} s in {}", limit_s, what);
  if (current_)
    if (const std::optional<std::string> baseline = baseline_of_role(role)) {
      // The case has no verdict yet: the next worker runs it without this baseline.
      events_.baseline_failed(current_->index, blamed_baseline(*baseline, "timeout", reason));
      std::_Exit(kExitStickyFault);
    }
  CaseResult r;
  if (current_) {
    r.index = current_->index;
    r.kind = current_->kind;
    r.trials = current_->trials;
    r.seed = current_->seed;
    r.bytes = current_->bytes;
  }
  r.verdict = Verdict::failed;
  r.fault = "timeout";
  r.reason = reason;
  if (current_) blame_by_role(r, current_->kind, role, r.fault, r.reason);
  events_.result(r);
  // The kernel cannot be stopped from here; ending the process destroys its context.
  std::_Exit(kExitStickyFault);
}

CaseOutcome CaseRunner::run(const CaseJob& job) {
  CaseJob without;   // the case less every baseline blamed so far
  const CaseJob* attempt = &job;
  for (;;) {
    CaseOutcome out = run_once(*attempt);
    if (!out.blamed_baseline) return out;
    events_.baseline_failed(job.index, *out.blamed_baseline);
    if (out.sticky) return out;   // the context is gone: the next worker runs the case without it
    without = without_baseline(*attempt, out.blamed_baseline->name);
    attempt = &without;
  }
}

CaseOutcome CaseRunner::run_once(const CaseJob& job) {
  events_.begin(job.index);
  current_ = &job;
  reference_s_.reset();
  CaseOutcome out;
  std::string stage = "setup";
  try {
    out.result = run_unguarded(job, stage);
  } catch (const BaselineAtFault& f) {
    out.blamed_baseline = f.baseline;
  } catch (const KernelFault& f) {
    const std::string what = fault_words(f.fault) + ", in " + stage + ": " + f.what();
    out.sticky = f.sticky;
    if (const std::optional<std::string> baseline = baseline_of_role(f.role)) {
      out.blamed_baseline = blamed_baseline(*baseline, f.fault, what);
    } else {
      out.result.verdict = Verdict::failed;
      out.result.fault = f.fault;
      out.result.reason = what;
      blame_by_role(out.result, job.kind, f.role, f.fault, what);
    }
  } catch (const cuda::CudaFault& f) {
    out.result.verdict = Verdict::failed;
    out.result.fault = f.fault;
    out.result.reason = fault_words(f.fault) + ", in " + stage + ": " + f.what();
    out.sticky = f.sticky;
  } catch (const std::exception& e) {  // a job the worker cannot carry out (missing cubin, ...)
    out.result.verdict = Verdict::failed;
    out.result.fault = "job_error";
    out.result.reason = "the worker could not carry out the case, in " + stage + ": " + e.what();
  }
  watchdog_.disarm();
  current_ = nullptr;
  if (out.blamed_baseline) return out;
  out.result.index = job.index;
  out.result.kind = job.kind;
  out.result.trials = job.trials;
  out.result.seed = job.seed;
  out.result.bytes = job.bytes;
  events_.result(out.result);
  return out;
}

int CaseRunner::input_sets(const CaseJob& job, bool with_solution) const {
  // Cold timing rotates input sets that together exceed the L2; hot timing keeps one (rotating
  // would evict exactly what --hot asks to keep).
  if (!with_solution || !job.time || settings_.timing.hot) return 1;
  size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  return timed_input_sets(CaseBuffers::set_bytes(job, with_solution), settings_.l2_bytes, free_bytes,
                          settings_.max_input_sets);
}

CaseResult CaseRunner::run_unguarded(const CaseJob& job, std::string& stage) {
  CaseResult r;
  const bool reference_check = job.kind == "reference_check";
  if (!reference_check && job.kind != "compare")
    throw Error("unknown case kind '" + job.kind + "' (expected compare or reference_check)");
  if (!reference_check && !job.solution) throw Error("a compare case needs a solution launch");
  if (reference_check && !job.oracle) throw Error("a reference_check case needs the task's oracle launch");

  stage = "allocation";
  const bool with_solution = !reference_check;
  // Before the input sets, so the timed sets are chosen beside its fp64 copies.
  std::optional<PrecisionCheck> precision;
  if (with_solution && job.oracle) precision.emplace(job, modules_, oracle_scratch_, cuda_.stream());
  CaseBuffers buffers(job, with_solution, input_sets(job, with_solution), support_, cuda_.stream());

  stage = "loading kernels";
  const CUfunction ref_fn = modules_.function(job.reference.module, job.reference.function);
  const CUfunction sol_fn = with_solution ? modules_.function(job.solution->module, job.solution->function) : nullptr;
  const CUfunction oracle_fn = reference_check ? modules_.function(job.oracle->module, job.oracle->function) : nullptr;
  // Validation uses input set 0 (timing binds every set and both sides' copies, case_timing.cpp).
  const BoundLaunch reference(ref_fn, job.reference, buffers.args(Side::reference, 0), "reference");
  std::optional<BoundLaunch> solution;
  if (with_solution) solution.emplace(sol_fn, *job.solution, buffers.args(Side::solution, 0), "solution");

  // The watchdog's limit for one launch of `role`, in words for its report. Each launch here is
  // synchronised before the next, so a hang is that launch's (role).
  auto arm = [&](const std::string& role) {
    const std::optional<double> ref = role == "solution" ? reference_s_ : std::nullopt;
    watchdog_.arm(launch_limit_s(settings_.launch_limit, ref),
                  fmt::format("the {}'s launch ({}; per-launch limit {})", role, stage,
                              describe_launch_limit(settings_.launch_limit, ref)),
                  role);
  };
  const ValidationContext ctx{cuda_.stream(), support_, &stage, arm, [&] { watchdog_.disarm(); }, &reference_s_};

  events_.phase(job.index, "validate");
  if (reference_check) {
    const ValidationOutcome v = validate_reference_against_oracle(job, buffers, reference, oracle_fn, ctx);
    r.error = v.acc.stats();
    r.reason = v.acc.failure_reason("reference kernel", "fp64 oracle");
    r.verdict = r.reason.empty() ? Verdict::correct : Verdict::incorrect;
    if (v.finding) {
      r.verdict = v.finding->verdict;
      r.fault = v.finding->fault;
      r.reason = v.finding->reason;
    }
    return r;
  }
  ValidationOutcome v =
      validate_against_reference(job, buffers, reference, *solution, ctx, precision ? &*precision : nullptr);
  if (precision) r.precision = precision->finish();
  r.error = v.acc.stats();
  r.reason = v.acc.failure_reason("solution", "reference kernel");
  r.verdict = r.reason.empty() ? Verdict::correct : Verdict::incorrect;
  if (v.finding) {
    r.verdict = v.finding->verdict;
    r.fault = v.finding->fault;
    r.reason = v.finding->reason;
  }
  if (r.verdict != Verdict::correct) return r;
  if (!job.baselines.empty()) {
    events_.phase(job.index, "validate_baselines");
    r.baselines = validate_baselines(job, buffers, reference, ctx);
  }
  if (!job.time) return r;
  if (!timer_) throw Error("the case asks for timing but the worker has no timer");

  // Fresh inputs for the other sets (set 0 keeps the last trial's); every launch while timed
  // poisons its outputs and restores its in-place buffers first (case_timing.cpp).
  stage = "preparing the timed input sets";
  for (int s = 1; s < buffers.sets(); ++s)
    fill_inputs(job, buffers, s, job.seed + static_cast<uint64_t>(job.trials) + static_cast<uint64_t>(s), support_,
                cuda_.stream());
  r.input_sets = buffers.sets();

  stage = "timing";
  events_.phase(job.index, "time");
  const TimedRecheck recheck = time_kernels(job, buffers, ctx, r);
  watchdog_.disarm();

  check_after_timing(buffers, ctx, recheck, r);
  return r;
}

}  // namespace ako::exec
