#include "exec/worker/determinism.hpp"

#include <set>

#include "cuda/fault.hpp"
#include "exec/protocol/verdict_reasons.hpp"
#include "exec/worker/case_inputs.hpp"
#include "exec/worker/write_checks.hpp"

namespace ako::exec {

namespace {

// The first run's results: every storage a compared unit lives in, whole.
void keep_first_run(const CaseJob& job, const CaseBuffers& buffers, const ValidationContext& ctx) {
  std::set<int> storages;
  for (const BufferWalk& u : buffers.plan().compared) storages.insert(u.storage);
  for (int s : storages)
    cuda::check(cuMemcpyDtoDAsync(buffers.spares()[s], buffers.args(Side::solution, 0)[s], storage_bytes(job.buffers[s]),
                                  ctx.stream),
                "cuMemcpyDtoDAsync(determinism copy)");
}

}  // namespace

std::optional<Finding> check_determinism(const CaseJob& job, const CaseBuffers& buffers, const BoundLaunch& reference,
                                         const BoundLaunch& solution, int t, const ValidationContext& ctx) {
  *ctx.stage = trial_stage(t, job.trials, "determinism re-run");
  keep_first_run(job, buffers, ctx);
  prepare_launch(job, buffers, Side::reference, 0, ctx.support, ctx.stream);
  run_kernel(reference, ctx);
  if (auto oob = check_reference_writes(job, buffers, 0, ctx)) return oob;
  prepare_launch(job, buffers, Side::solution, 0, ctx.support, ctx.stream);
  ctx.support.scribble_shared(kScribbleSecond, ctx.stream);
  run_kernel(solution, ctx);
  if (auto oob = check_solution_writes(job, buffers, 0, ctx, "the " + solution.role())) return oob;
  for (const BufferWalk& u : buffers.plan().compared) {
    const DType dtype = job.buffers[u.storage].dtype;
    // Zero tolerance: any difference (NaN included) counts.
    const verify::BufferComparison c =
        ctx.support.compare(dtype, buffers.args(Side::solution, 0)[u.storage], buffers.spares()[u.storage], u.walk,
                            Tolerance{0, 0}, ctx.stream);
    if (c.mismatches == 0) continue;
    return Finding{Verdict::incorrect, "",
                   nondeterministic_reason(job.buffers[u.buffer].name, c.mismatches, c.checked, c.worst_index,
                                           c.worst_want, c.worst_got)};
  }
  return std::nullopt;
}

}  // namespace ako::exec
