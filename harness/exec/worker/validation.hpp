#pragma once
// The correctness protocol of one case (SPEC.md, README "Trustworthy verdicts"), on input set 0:
// per trial, fresh seeded inputs, outputs poisoned before every launch, every output compared
// (NaN/Inf never pass, a constant output where the reference varies fails), the guard bands
// checked after every solution launch, and the solution run a second time on the same inputs
// (candidate, reference, candidate) with a different shared-memory scribble: outputs that
// differ bitwise are nondeterministic.
#include <cuda.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>

#include "exec/protocol/job.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "result/run_result.hpp"
#include "verify/cpu/cpu_reference.hpp"
#include "verify/gpu/buffer_comparison.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

struct ValidationContext {
  CUstream stream;
  verify::SupportKernels& support;
  std::string* stage;   // updated as validation proceeds, for fault messages
  // Around every launch of a kernel under test (its role: "reference" / "solution"): the
  // worker's per-launch watchdog. Either may be empty.
  std::function<void(const std::string& role)> arm;
  std::function<void()> disarm;
  std::optional<double>* reference_s = nullptr;   // set from the reference's first launch
};

// A defence that decides the case on its own, whatever the comparison says.
struct Finding {
  Verdict verdict = Verdict::failed;
  std::string fault;    // failed only
  std::string reason;
};

struct ValidationOutcome {
  verify::ErrorAccumulator acc;
  std::optional<Finding> finding;   // out-of-bounds write or nondeterminism
};

// Solution (or a baseline, on the solution's buffers) against the reference kernel, both on the GPU, over job.trials input sets
// (trial t seeded with job.seed + t). The inputs of the last trial stay in set 0.
ValidationOutcome validate_against_reference(const CaseJob& job, const CaseBuffers& buffers,
                                             const BoundLaunch& reference, const BoundLaunch& solution,
                                             const ValidationContext& ctx);

// The reference kernel against the CPU double-precision reference of job.op.
verify::ErrorAccumulator validate_reference_on_cpu(const CaseJob& job, const CaseBuffers& buffers,
                                                   const BoundLaunch& reference,
                                                   verify::CpuReferenceFn cpu_reference,
                                                   const ValidationContext& ctx);

// Fresh inputs of set `set` from `seed` (inputs and weights; outputs untouched).
void fill_inputs(const CaseJob& job, const CaseBuffers& buffers, int set, uint64_t seed, const ValidationContext& ctx);
// Every output buffer of `view` set to NaN (all bits set), with memsets.
void poison_outputs(const CaseJob& job, const std::vector<CUdeviceptr>& view, CUstream stream);

// Every output of the solution (`got`) against `want` with the case's tolerance, added to
// each accumulator in `into`.
void compare_outputs(const CaseJob& job, const std::vector<CUdeviceptr>& got, const std::vector<CUdeviceptr>& want,
                     const ValidationContext& ctx, std::initializer_list<verify::ErrorAccumulator*> into);

// The guards of what the solution gets in set `set`; a finding (failed, out_of_bounds_write)
// when any changed. Synchronises.
// `who` names the kernel in the reason ("the solution", "the baseline flashinfer").
std::optional<Finding> check_solution_guards(const CaseBuffers& buffers, int set, const ValidationContext& ctx,
                                             const std::string& who = "the solution");
// The same over `guards` (CaseBuffers::all_guards after timing, for one).
std::optional<Finding> check_guards(const std::vector<CaseBuffers::Guard>& guards, const ValidationContext& ctx,
                                    const std::string& who = "the solution");

}  // namespace ako::exec
