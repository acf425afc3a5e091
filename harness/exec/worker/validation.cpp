#include "exec/worker/validation.hpp"

#include "common/error.hpp"
#include "exec/worker/fault.hpp"
#include "verify/gpu/host_compare.hpp"

namespace ako::exec {

namespace {

bool is_output(const BufferJob& b) { return b.role == BufferRole::output; }

void fill_inputs(const CaseJob& job, const CaseBuffers& buffers, uint64_t trial_seed,
                 const ValidationContext& ctx) {
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || is_output(b)) continue;
    ctx.support.fill(b, buffers.reference_view()[i],
                     verify::SupportKernels::buffer_seed(trial_seed, static_cast<int>(i)), ctx.stream);
  }
}

void poison_outputs(const CaseJob& job, const std::vector<CUdeviceptr>& view, const ValidationContext& ctx) {
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (b.present && is_output(b)) ctx.support.poison(b.dtype, view[i], b.count, ctx.stream);
  }
}

// Launch, then wait, so a fault is charged to the kernel that caused it.
void run_kernel(const BoundLaunch& k, CUstream stream) {
  k.launch_checked(stream);
  check(cuStreamSynchronize(stream), "cuStreamSynchronize(" + k.role() + ")");
}

std::string trial_stage(int t, int trials, const char* what) {
  return "validation trial " + std::to_string(t + 1) + "/" + std::to_string(trials) + ", " + what;
}

}  // namespace

verify::ErrorAccumulator validate_against_reference(const CaseJob& job, const CaseBuffers& buffers,
                                                    const BoundLaunch& reference,
                                                    const BoundLaunch& solution,
                                                    const ValidationContext& ctx) {
  verify::ErrorAccumulator acc;
  for (int t = 0; t < job.trials; ++t) {
    *ctx.stage = trial_stage(t, job.trials, "inputs");
    fill_inputs(job, buffers, job.seed + t, ctx);
    poison_outputs(job, buffers.reference_view(), ctx);
    poison_outputs(job, buffers.solution_view(), ctx);
    *ctx.stage = trial_stage(t, job.trials, "reference");
    run_kernel(reference, ctx.stream);
    *ctx.stage = trial_stage(t, job.trials, "solution");
    run_kernel(solution, ctx.stream);
    *ctx.stage = trial_stage(t, job.trials, "compare");
    for (size_t i = 0; i < job.buffers.size(); ++i) {
      const BufferJob& b = job.buffers[i];
      if (!b.present || !is_output(b)) continue;
      acc.add(ctx.support.compare(b.dtype, buffers.solution_view()[i], buffers.reference_view()[i],
                                  b.count, job.tolerance, ctx.stream),
              b.name);
    }
  }
  return acc;
}

verify::ErrorAccumulator validate_reference_on_cpu(const CaseJob& job, const CaseBuffers& buffers,
                                                   const BoundLaunch& reference,
                                                   verify::CpuReferenceFn cpu_reference,
                                                   const ValidationContext& ctx) {
  verify::ErrorAccumulator acc;
  const auto& view = buffers.reference_view();
  for (int t = 0; t < job.trials; ++t) {
    *ctx.stage = trial_stage(t, job.trials, "inputs");
    fill_inputs(job, buffers, job.seed + t, ctx);
    poison_outputs(job, view, ctx);
    *ctx.stage = trial_stage(t, job.trials, "reference");
    run_kernel(reference, ctx.stream);

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
