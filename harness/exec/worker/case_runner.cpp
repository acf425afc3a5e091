#include "exec/worker/case_runner.hpp"

#include <memory>

#include "common/error.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/fault.hpp"
#include "exec/worker/validation.hpp"

namespace ako::exec {

namespace {
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
}  // namespace

CaseRunner::CaseRunner(const CudaSession& cuda, ModuleCache& modules, verify::SupportKernels& support,
                       measure::Timer* timer, const TimingOptions& timing, const EventWriter& events)
    : cuda_(cuda), modules_(modules), support_(support), timer_(timer), timing_(timing), events_(events) {}

CaseOutcome CaseRunner::run(const CaseJob& job) {
  events_.begin(job.index);
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
  out.result.index = job.index;
  out.result.kind = job.kind;
  out.result.trials = job.trials;
  out.result.seed = job.seed;
  out.result.bytes = job.bytes;
  events_.result(out.result);
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
  CaseBuffers buffers(job, !reference_check);
  stage = "loading kernels";
  BoundLaunch reference(modules_.function(job.reference.module, job.reference.function), job.reference,
                        buffers.reference_view(), "reference");
  std::unique_ptr<BoundLaunch> solution;
  if (!reference_check)
    solution = std::make_unique<BoundLaunch>(modules_.function(job.solution->module, job.solution->function),
                                             *job.solution, buffers.solution_view(), "solution");

  events_.phase(job.index, "validate");
  const ValidationContext ctx{cuda_.stream(), support_, &stage};
  const verify::ErrorAccumulator acc =
      reference_check ? validate_reference_on_cpu(job, buffers, reference, cpu_reference, ctx)
                      : validate_against_reference(job, buffers, reference, *solution, ctx);
  r.error = acc.stats();
  r.reason = reference_check ? acc.failure_reason(job.tolerance, "reference kernel", "CPU double reference")
                             : acc.failure_reason(job.tolerance, "solution", "reference kernel");
  r.verdict = r.reason.empty() ? Verdict::correct : Verdict::incorrect;
  if (r.verdict != Verdict::correct || !job.time) return r;
  if (!timer_) throw Error("the case asks for timing but the worker has no timer");

  // Timing reuses the last trial's inputs; outputs may be overwritten freely.
  if (job.time_reference) {
    stage = "timing reference";
    events_.phase(job.index, "time_reference");
    r.reference_time = timer_->time([&](CUstream s) { return reference.launch(s); }, cuda_.stream(), timing_);
  }
  if (solution) {
    stage = "timing solution";
    events_.phase(job.index, "time_solution");
    r.solution_time = timer_->time([&](CUstream s) { return solution->launch(s); }, cuda_.stream(), timing_);
  }
  return r;
}

}  // namespace ako::exec
