#include "exec/worker/validation.hpp"

#include <chrono>

#include "cuda/fault.hpp"
#include "exec/worker/case_inputs.hpp"
#include "exec/worker/determinism.hpp"
#include "exec/worker/precision_check.hpp"
#include "exec/worker/write_checks.hpp"

namespace ako::exec {

double run_kernel(const BoundLaunch& k, const ValidationContext& ctx) {
  if (ctx.arm) ctx.arm(k.role());
  const auto t0 = std::chrono::steady_clock::now();
  try {
    k.launch_checked(ctx.stream);
    cuda::check(cuStreamSynchronize(ctx.stream), "cuStreamSynchronize(" + k.role() + ")");
  } catch (const cuda::CudaFault& f) {
    throw KernelFault(f, k.role());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ctx.disarm) ctx.disarm();
  return s;
}

std::string trial_stage(int t, int trials, const std::string& what) {
  return "validation trial " + std::to_string(t + 1) + "/" + std::to_string(trials) + ", " + what;
}

void compare_units(const CaseJob& job, const CaseBuffers& buffers, Side got, Side want, int set,
                   const ValidationContext& ctx, std::initializer_list<verify::ErrorAccumulator*> into) {
  for (const BufferWalk& u : buffers.plan().compared) {
    const BufferJob& b = job.buffers[u.buffer];
    const DType t = job.buffers[u.storage].dtype;
    const verify::BufferComparison c = ctx.support.compare(t, buffers.args(got, set)[u.storage],
                                                           buffers.args(want, set)[u.storage], u.walk, b.tolerance,
                                                           ctx.stream);
    for (verify::ErrorAccumulator* acc : into) acc->add(c, b.name, b.tolerance, dtype_is_integer(t));
  }
}

ValidationOutcome validate_against_reference(const CaseJob& job, const CaseBuffers& buffers,
                                             const BoundLaunch& reference, const BoundLaunch& solution,
                                             const ValidationContext& ctx, PrecisionCheck* precision) {
  ValidationOutcome out;
  for (int t = 0; t < job.trials; ++t) {
    *ctx.stage = trial_stage(t, job.trials, "inputs");
    fill_inputs(job, buffers, 0, job.seed + t, ctx.support, ctx.stream);
    prepare_launch(job, buffers, Side::reference, 0, ctx.support, ctx.stream);
    prepare_launch(job, buffers, Side::solution, 0, ctx.support, ctx.stream);
    if (precision) precision->take_inputs(job, buffers, t, ctx);
    *ctx.stage = trial_stage(t, job.trials, "reference");
    const double ref_s = run_kernel(reference, ctx);
    if (ctx.reference_s && !*ctx.reference_s) *ctx.reference_s = ref_s;
    *ctx.stage = trial_stage(t, job.trials, "the reference's guard bands and views");
    if ((out.finding = check_reference_writes(job, buffers, 0, ctx))) return out;
    *ctx.stage = trial_stage(t, job.trials, solution.role());
    ctx.support.scribble_shared(kScribbleFirst, ctx.stream);
    run_kernel(solution, ctx);
    *ctx.stage = trial_stage(t, job.trials, "guard bands and views");
    if ((out.finding = check_solution_writes(job, buffers, 0, ctx, "the " + solution.role()))) return out;
    *ctx.stage = trial_stage(t, job.trials, "compare");
    verify::ErrorAccumulator trial;
    compare_units(job, buffers, Side::solution, Side::reference, 0, ctx, {&out.acc, &trial});
    // Only a trial that passed can tell nondeterminism from plain wrong results.
    if (!trial.failure_reason("solution", "reference kernel").empty()) continue;
    if (precision && (out.finding = precision->judge_trial(job, buffers, t, ctx))) return out;
    if ((out.finding = check_determinism(job, buffers, reference, solution, t, ctx))) return out;
  }
  return out;
}

}  // namespace ako::exec
