#include "exec/worker/case_runner.hpp"

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "common/error.hpp"
#include "exec/protocol/verdict_reasons.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/fault.hpp"
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

// The kernel launches of one timing, one BoundLaunch per input set, used in turn; before each
// launch the outputs of the set it is about to use are poisoned (outside the sample's window).
struct Rotation {
  const CaseJob& job;
  const std::vector<std::unique_ptr<BoundLaunch>>& launches;
  std::vector<const std::vector<CUdeviceptr>*> outputs;   // per set: the view holding its outputs
  size_t next = 0;

  void before_launch(CUstream s) const { poison_outputs(job, *outputs[next % outputs.size()], s); }
  CUresult launch(CUstream s) { return launches[next++ % launches.size()]->launch(s); }
};

}  // namespace

CaseRunner::CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
                       measure::Timer* timer, const RunnerSettings& settings, const EventWriter& events)
    : cuda_(cuda), modules_(modules), support_(support), timer_(timer), settings_(settings), events_(events),
      watchdog_([this](const std::string& what, double limit_s) { on_launch_timeout(what, limit_s); }) {}

void CaseRunner::on_launch_timeout(const std::string& what, double limit_s) {
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
  r.reason = fmt::format("timeout: no progress for {:g} s in {}", limit_s, what);
  events_.result(r);
  // The kernel cannot be stopped from here; ending the process destroys its context.
  std::_Exit(kExitStickyFault);
}

CaseOutcome CaseRunner::run(const CaseJob& job) {
  events_.begin(job.index);
  current_ = &job;
  reference_s_.reset();
  CaseOutcome out;
  std::string stage = "setup";
  try {
    out.result = run_unguarded(job, stage);
  } catch (const CudaFault& f) {
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
  out.result.index = job.index;
  out.result.kind = job.kind;
  out.result.trials = job.trials;
  out.result.seed = job.seed;
  out.result.bytes = job.bytes;
  events_.result(out.result);
  current_ = nullptr;
  return out;
}

CaseResult CaseRunner::run_unguarded(const CaseJob& job, std::string& stage) {
  CaseResult r;
  const bool reference_check = job.kind == "reference_check";
  if (!reference_check && job.kind != "compare")
    throw Error("unknown case kind '" + job.kind + "' (expected compare or reference_check)");
  if (!reference_check && !job.solution) throw Error("a compare case needs a solution launch");
  verify::CpuReferenceFn cpu_reference = nullptr;
  if (reference_check) {
    cpu_reference = verify::find_cpu_reference(job.op);
    if (!cpu_reference) throw Error("no CPU reference is registered for op '" + job.op + "'");
  }

  stage = "allocation";
  const bool with_solution = !reference_check;
  const bool timed = with_solution && job.time;
  // Cold timing rotates input sets that together exceed the L2; hot timing keeps one (rotating
  // would evict exactly what --hot asks to keep).
  int sets = 1;
  if (timed && !settings_.timing.hot) {
    size_t free_bytes = 0, total_bytes = 0;
    check(cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
    sets = timed_input_sets(CaseBuffers::set_bytes(job, with_solution), settings_.l2_bytes, free_bytes,
                            settings_.max_input_sets);
  }
  CaseBuffers buffers(job, with_solution, sets, support_, cuda_.stream());

  stage = "loading kernels";
  const CUfunction ref_fn = modules_.function(job.reference.module, job.reference.function);
  const CUfunction sol_fn = with_solution ? modules_.function(job.solution->module, job.solution->function) : nullptr;
  std::vector<std::unique_ptr<BoundLaunch>> references, solutions;
  for (int s = 0; s < buffers.sets(); ++s) {
    references.push_back(std::make_unique<BoundLaunch>(ref_fn, job.reference, buffers.reference_view(s), "reference"));
    if (with_solution)
      solutions.push_back(std::make_unique<BoundLaunch>(sol_fn, *job.solution, buffers.solution_view(s), "solution"));
  }

  // The watchdog's limit for one launch of `role`, in words for its report.
  auto arm = [&](const std::string& role) {
    const std::optional<double> ref = role == "solution" ? reference_s_ : std::nullopt;
    watchdog_.arm(launch_limit_s(settings_.launch_limit, ref),
                  fmt::format("the {}'s launch ({}; per-launch limit {})", role, stage,
                              describe_launch_limit(settings_.launch_limit, ref)));
  };
  const ValidationContext ctx{cuda_.stream(), support_, &stage, arm, [&] { watchdog_.disarm(); }, &reference_s_};

  events_.phase(job.index, "validate");
  if (reference_check) {
    const verify::ErrorAccumulator acc = validate_reference_on_cpu(job, buffers, *references[0], cpu_reference, ctx);
    r.error = acc.stats();
    r.reason = acc.failure_reason(job.tolerance, "reference kernel", "CPU double reference");
    r.verdict = r.reason.empty() ? Verdict::correct : Verdict::incorrect;
    return r;
  }
  ValidationOutcome v = validate_against_reference(job, buffers, *references[0], *solutions[0], ctx);
  r.error = v.acc.stats();
  r.reason = v.acc.failure_reason(job.tolerance, "solution", "reference kernel");
  r.verdict = r.reason.empty() ? Verdict::correct : Verdict::incorrect;
  if (v.finding) {
    r.verdict = v.finding->verdict;
    r.fault = v.finding->fault;
    r.reason = v.finding->reason;
  }
  if (r.verdict != Verdict::correct || !job.time) return r;
  if (!timer_) throw Error("the case asks for timing but the worker has no timer");

  // Fresh inputs for the other sets (set 0 keeps the last trial's), every output poisoned.
  stage = "preparing the timed input sets";
  for (int s = 1; s < buffers.sets(); ++s)
    fill_inputs(job, buffers, s, job.seed + static_cast<uint64_t>(job.trials) + static_cast<uint64_t>(s), ctx);
  r.input_sets = buffers.sets();

  if (job.time_reference) {
    stage = "timing reference";
    events_.phase(job.index, "time_reference");
    Rotation rot{job, references, {}};
    for (int s = 0; s < buffers.sets(); ++s) rot.outputs.push_back(&buffers.reference_view(s));
    measure::SampleHooks hooks;
    hooks.before_launch = [&](CUstream st) { rot.before_launch(st); };
    r.reference_time = timer_->time([&](CUstream st) { return rot.launch(st); }, cuda_.stream(), settings_.timing, hooks);
  }

  stage = "timing solution";
  events_.phase(job.index, "time_solution");
  Rotation rot{job, solutions, {}};
  for (int s = 0; s < buffers.sets(); ++s) rot.outputs.push_back(&buffers.solution_view(s));
  const measure::DeclaredLaunch declared{job.solution->grid, job.solution->block, 1};
  measure::SampleHooks hooks;
  hooks.before_launch = [&](CUstream st) { rot.before_launch(st); };
  hooks.declared = &declared;
  // Re-armed at every launch; the deadline covers the launch and the sample around it.
  const double limit_s = launch_limit_s(settings_.launch_limit, reference_s_);
  const std::string watched = fmt::format("the solution's launch ({}; per-launch limit {})", stage,
                                          describe_launch_limit(settings_.launch_limit, reference_s_));
  r.solution_time = timer_->time(
      [&](CUstream st) {
        watchdog_.arm(limit_s, watched);
        return rot.launch(st);
      },
      cuda_.stream(), settings_.timing, hooks);
  watchdog_.disarm();

  // After timing: the guards of every set, the launch audit, and the timed outputs again.
  stage = "guard bands after timing";
  for (int s = 0; s < buffers.sets(); ++s) {
    if (auto oob = check_solution_guards(buffers, s, ctx)) {
      r.verdict = oob->verdict;
      r.fault = oob->fault;
      r.reason = oob->reason + fmt::format(" (during timing, input set {} of {})", s + 1, buffers.sets());
      return r;
    }
  }
  if (!r.solution_time->launch_audit.empty()) {
    r.verdict = Verdict::failed;
    r.fault = "undeclared_work";
    r.reason = "undeclared GPU work while timing the solution: " + r.solution_time->launch_audit;
    return r;
  }
  for (int s = 0; s < buffers.sets(); ++s) {
    stage = fmt::format("re-checking the timed output of input set {} of {}", s + 1, buffers.sets());
    poison_outputs(job, buffers.reference_view(s), cuda_.stream());
    references[s]->launch_checked(cuda_.stream());
    check(cuStreamSynchronize(cuda_.stream()), "cuStreamSynchronize(reference, re-check)");
    verify::ErrorAccumulator acc;
    compare_outputs(job, buffers.solution_view(s), buffers.reference_view(s), ctx, {&acc});
    const std::string why = acc.failure_reason(job.tolerance, "solution", "reference kernel");
    if (why.empty()) continue;
    r.verdict = Verdict::incorrect;
    r.error = acc.stats();
    r.reason = fmt::format("timed output re-check (input set {} of {}, the solution's last timed launch on it): {}",
                           s + 1, buffers.sets(), why);
    return r;
  }
  return r;
}

}  // namespace ako::exec
