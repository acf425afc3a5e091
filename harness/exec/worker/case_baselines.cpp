// Baselines are validated like the solution (same inputs, poisoning, guards, determinism), on
// the solution's buffers of input set 0, after the solution: their verdicts are their own and
// never the case's. A baseline that faults the context still ends the case (the context is
// gone), with the stage naming the baseline.
#include <fmt/format.h>

#include "exec/worker/case_runner.hpp"

namespace ako::exec {

std::vector<BaselineResult> CaseRunner::validate_baselines(const CaseJob& job, const CaseBuffers& buffers,
                                                           const BoundLaunch& reference, const ValidationContext& ctx) {
  std::vector<BaselineResult> out;
  for (const BaselineJob& b : job.baselines) {
    BaselineResult res;
    res.name = b.name;
    *ctx.stage = "validating baseline " + b.name;
    const CUfunction fn = modules_.function(b.launch.module, b.launch.function);
    const BoundLaunch launch(fn, b.launch, buffers.args(Side::solution, 0), "baseline " + b.name);
    ValidationOutcome v = validate_against_reference(job, buffers, reference, launch, ctx);
    res.error = v.acc.stats();
    res.reason = v.acc.failure_reason("baseline " + b.name, "reference kernel");
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
