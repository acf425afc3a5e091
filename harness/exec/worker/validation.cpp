#include "exec/worker/validation.hpp"

#include <chrono>
#include <initializer_list>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "exec/protocol/guard_layout.hpp"
#include "exec/protocol/verdict_reasons.hpp"
#include "verify/gpu/host_compare.hpp"

namespace ako::exec {

namespace {

// Shared-memory scribbles of the determinism check's two solution runs: zeros, then all bits
// set (NaN in every float type). A kernel that reads shared memory it never wrote sees
// different values in the two runs.
constexpr uint32_t kScribbleFirst = 0x00000000u;
constexpr uint32_t kScribbleSecond = 0xFFFFFFFFu;

bool is_output(const BufferJob& b) { return b.role == BufferRole::output; }

// Launch, then wait, so a fault is charged to the kernel that caused it. Returns the wall time.
double run_kernel(const BoundLaunch& k, const ValidationContext& ctx) {
  if (ctx.arm) ctx.arm(k.role());
  const auto t0 = std::chrono::steady_clock::now();
  k.launch_checked(ctx.stream);
  cuda::check(cuStreamSynchronize(ctx.stream), "cuStreamSynchronize(" + k.role() + ")");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ctx.disarm) ctx.disarm();
  return s;
}

std::string trial_stage(int t, int trials, const char* what) {
  return "validation trial " + std::to_string(t + 1) + "/" + std::to_string(trials) + ", " + what;
}

}  // namespace

void compare_outputs(const CaseJob& job, const std::vector<CUdeviceptr>& got, const std::vector<CUdeviceptr>& want,
                     const ValidationContext& ctx, std::initializer_list<verify::ErrorAccumulator*> into) {
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || !is_output(b)) continue;
    const verify::BufferComparison c = ctx.support.compare(b.dtype, got[i], want[i], b.count, job.tolerance, ctx.stream);
    for (verify::ErrorAccumulator* acc : into) acc->add(c, b.name);
  }
}

namespace {

// Candidate, reference, candidate: the second solution run on the same inputs must give the
// same bits as the first (kept in the spare buffers).
std::optional<Finding> check_determinism(const CaseJob& job, const CaseBuffers& buffers,
                                         const BoundLaunch& reference, const BoundLaunch& solution,
                                         int t, const ValidationContext& ctx) {
  *ctx.stage = trial_stage(t, job.trials, "determinism re-run");
  const auto& sol = buffers.solution_view();
  const auto& spare = buffers.spare_outputs();
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (b.present && is_output(b))
      cuda::check(cuMemcpyDtoDAsync(spare[i], sol[i], b.count * dtype_size(b.dtype), ctx.stream),
            "cuMemcpyDtoDAsync(determinism copy)");
  }
  poison_outputs(job, buffers.reference_view(), ctx.stream);
  run_kernel(reference, ctx);
  poison_outputs(job, sol, ctx.stream);
  ctx.support.scribble_shared(kScribbleSecond, ctx.stream);
  run_kernel(solution, ctx);
  if (auto oob = check_solution_guards(buffers, 0, ctx, "the " + solution.role())) return oob;
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || !is_output(b)) continue;
    // Zero tolerance: any difference (NaN included) counts.
    const verify::BufferComparison c = ctx.support.compare(b.dtype, sol[i], spare[i], b.count, Tolerance{0, 0}, ctx.stream);
    if (c.mismatches == 0) continue;
    return Finding{Verdict::incorrect, "",
                   nondeterministic_reason(b.name, c.mismatches, c.checked, c.worst_index, c.worst_want, c.worst_got)};
  }
  return std::nullopt;
}

}  // namespace

void fill_inputs(const CaseJob& job, const CaseBuffers& buffers, int set, uint64_t seed, const ValidationContext& ctx) {
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || is_output(b)) continue;
    ctx.support.fill(b, buffers.reference_view(set)[i],
                     verify::SupportKernels::buffer_seed(seed, static_cast<int>(i)), ctx.stream);
  }
}

void poison_outputs(const CaseJob& job, const std::vector<CUdeviceptr>& view, CUstream stream) {
  // All bits set is NaN in fp16, bf16 and fp32 (the same value ako_poison writes).
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (b.present && is_output(b))
      cuda::check(cuMemsetD8Async(view[i], 0xFF, b.count * dtype_size(b.dtype), stream), "cuMemsetD8Async(poison " + b.name + ")");
  }
}

std::optional<Finding> check_solution_guards(const CaseBuffers& buffers, int set, const ValidationContext& ctx,
                                             const std::string& who) {
  return check_guards(buffers.solution_guards(set), ctx, who);
}

std::optional<Finding> check_guards(const std::vector<CaseBuffers::Guard>& guards, const ValidationContext& ctx,
                                    const std::string& who) {
  std::vector<verify::SupportKernels::GuardRegion> regions;
  for (const auto& g : guards) regions.push_back(g.region);
  const auto counts = ctx.support.guard_check(regions, ctx.stream);
  std::string reason;
  for (size_t i = 0; i < guards.size(); ++i) {
    if (!counts[i].changed) continue;
    GuardDamage d{guards[i].buffer, guards[i].before, counts[i].changed, counts[i].first, counts[i].last,
                  guards[i].region.bytes};
    reason += (reason.empty() ? "out-of-bounds write: " : "; ") + describe_guard_damage(who, d);
  }
  if (reason.empty()) return std::nullopt;
  return Finding{Verdict::failed, "out_of_bounds_write", reason};
}

ValidationOutcome validate_against_reference(const CaseJob& job, const CaseBuffers& buffers,
                                             const BoundLaunch& reference, const BoundLaunch& solution,
                                             const ValidationContext& ctx) {
  ValidationOutcome out;
  for (int t = 0; t < job.trials; ++t) {
    *ctx.stage = trial_stage(t, job.trials, "inputs");
    fill_inputs(job, buffers, 0, job.seed + t, ctx);
    poison_outputs(job, buffers.reference_view(), ctx.stream);
    poison_outputs(job, buffers.solution_view(), ctx.stream);
    *ctx.stage = trial_stage(t, job.trials, "reference");
    const double ref_s = run_kernel(reference, ctx);
    if (ctx.reference_s && !*ctx.reference_s) *ctx.reference_s = ref_s;
    *ctx.stage = trial_stage(t, job.trials, solution.role().c_str());
    ctx.support.scribble_shared(kScribbleFirst, ctx.stream);
    run_kernel(solution, ctx);
    *ctx.stage = trial_stage(t, job.trials, "guard bands");
    if ((out.finding = check_solution_guards(buffers, 0, ctx, "the " + solution.role()))) return out;
    *ctx.stage = trial_stage(t, job.trials, "compare");
    verify::ErrorAccumulator trial;
    compare_outputs(job, buffers.solution_view(), buffers.reference_view(), ctx, {&out.acc, &trial});
    // Only a trial that passed can tell nondeterminism from plain wrong results.
    if (!trial.failure_reason(job.tolerance, "solution", "reference kernel").empty()) continue;
    if ((out.finding = check_determinism(job, buffers, reference, solution, t, ctx))) return out;
  }
  return out;
}

verify::ErrorAccumulator validate_reference_on_cpu(const CaseJob& job, const CaseBuffers& buffers,
                                                   const BoundLaunch& reference,
                                                   verify::CpuReferenceFn cpu_reference,
                                                   const ValidationContext& ctx) {
  verify::ErrorAccumulator acc;
  const auto& view = buffers.reference_view();
  for (int t = 0; t < job.trials; ++t) {
    *ctx.stage = trial_stage(t, job.trials, "inputs");
    fill_inputs(job, buffers, 0, job.seed + t, ctx);
    poison_outputs(job, view, ctx.stream);
    *ctx.stage = trial_stage(t, job.trials, "reference");
    run_kernel(reference, ctx);

    *ctx.stage = trial_stage(t, job.trials, "CPU reference");
    verify::CpuCase c{job.dims, job.scalars, {}};
    for (size_t i = 0; i < job.buffers.size(); ++i) {
      const BufferJob& b = job.buffers[i];
      if (b.present && !is_output(b))
        c.inputs[b.name] = verify::download_as_double(view[i], b.dtype, b.count, ctx.stream);
    }
    std::map<std::string, std::vector<double>> expected;
    cpu_reference(c, expected);
    for (size_t i = 0; i < job.buffers.size(); ++i) {
      const BufferJob& b = job.buffers[i];
      if (!b.present || !is_output(b)) continue;
      auto it = expected.find(b.name);
      if (it == expected.end())
        throw Error("the CPU reference of '" + job.op + "' gives no output named '" + b.name + "'");
      acc.add(verify::compare_on_host(verify::download_as_double(view[i], b.dtype, b.count, ctx.stream),
                                      it->second, job.tolerance),
              b.name);
    }
  }
  return acc;
}

}  // namespace ako::exec
