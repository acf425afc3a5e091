// Baselines are validated like the solution (same inputs, poisoning, guards, determinism), on
// the solution's buffers of input set 0, after the solution: their verdicts are their own and
// never the case's. A baseline that faults (a KernelFault naming its role) or writes out of
// bounds (BaselineAtFault: the guards it damaged would be charged to the kernels timed next) is
// blamed, and the case runs again without it (exec/protocol/baseline_blame.hpp).
#include <optional>

#include <fmt/format.h>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "exec/protocol/baseline_blame.hpp"
#include "exec/worker/case_runner.hpp"

namespace ako::exec {

std::vector<BaselineResult> CaseRunner::validate_baselines(const CaseJob& job, const CaseBuffers& buffers,
                                                           const BoundLaunch& reference, const ValidationContext& ctx) {
  std::vector<BaselineResult> out;
  for (const BaselineJob& b : job.baselines) {
    BaselineResult res;
    res.name = b.name;
    *ctx.stage = "validating baseline " + b.name;
    std::optional<BoundLaunch> bound;
    try {   // its module and launch set-up are its own too (a cubin it cannot load, a refused attribute)
      const CUfunction fn = modules_.function(b.launch.module, b.launch.function);
      bound.emplace(fn, b.launch, buffers.args(Side::solution, 0), baseline_role(b.name));
    } catch (const cuda::CudaFault& f) {
      throw KernelFault(f, baseline_role(b.name));
    } catch (const Error& e) {
      throw BaselineAtFault(blamed_baseline(b.name, "job_error", e.what()));
    }
    const BoundLaunch& launch = *bound;
    ValidationOutcome v = validate_against_reference(job, buffers, reference, launch, ctx);
    if (v.finding && v.finding->fault == "out_of_bounds_write")
      throw BaselineAtFault(blamed_baseline(b.name, v.finding->fault, v.finding->reason));
    res.error = v.acc.stats();
    res.reason = v.acc.failure_reason(baseline_role(b.name), "reference kernel");
    res.verdict = res.reason.empty() ? Verdict::correct : Verdict::incorrect;
    if (v.finding) {
      res.verdict = v.finding->verdict;
      res.fault = v.finding->fault;
      res.reason = v.finding->reason;
    }
    out.push_back(std::move(res));
  }
  return out;
}

}  // namespace ako::exec
