#pragma once
// The correctness protocol of one case (SPEC.md, README "Trustworthy verdicts"), on input set 0:
// per trial, fresh seeded inputs, outputs poisoned and in-place buffers restored before every
// launch, every compared unit compared with its buffer's tolerance (NaN/Inf never pass,
// integers exactly, a constant output where the reference varies fails), the guard bands and
// the contents outside writable views checked after every solution launch, and the solution run
// a second time on the same inputs (candidate, reference, candidate) with a different
// shared-memory scribble: results that differ bitwise are nondeterministic.
#include <cuda.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>

#include "cuda/fault.hpp"
#include "exec/protocol/job.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "result/run_result.hpp"
#include "verify/gpu/buffer_comparison.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

class PrecisionCheck;   // exec/worker/precision_check.hpp

struct ValidationContext {
  CUstream stream;
  verify::SupportKernels& support;
  std::string* stage;   // updated as validation proceeds, for fault messages
  // Around every launch of a kernel under test (its role: "reference" / "solution" / ...): the
  // worker's per-launch watchdog, which knows whose launch it watches. Either may be empty.
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
  std::optional<Finding> finding;   // out-of-bounds write (the solution's or the reference's) or nondeterminism
};

// Solution (or a baseline, on the solution's buffers) against the reference kernel, both on the
// GPU, over job.trials input sets (trial t seeded with job.seed + t). The inputs of the last
// trial stay in set 0. With `precision` (the solution only), every trial that matched the
// reference is also judged against the task's fp64 oracle (exec/worker/precision_check.hpp).
ValidationOutcome validate_against_reference(const CaseJob& job, const CaseBuffers& buffers,
                                             const BoundLaunch& reference, const BoundLaunch& solution,
                                             const ValidationContext& ctx, PrecisionCheck* precision = nullptr);

// A fault that surfaced in run_kernel: in the launch or in the synchronisation right after it,
// with every earlier launch already synchronised, so it is the fault of the kernel in `role`.
struct KernelFault : cuda::CudaFault {
  KernelFault(const cuda::CudaFault& f, std::string role) : cuda::CudaFault(f), role(std::move(role)) {}
  std::string role;
};

// Launch, then wait, so a fault is charged to the kernel that caused it (thrown as a
// KernelFault naming its role; armed with the watchdog). Returns the wall time in seconds.
double run_kernel(const BoundLaunch& k, const ValidationContext& ctx);

// Every compared unit of set `set`, the `got` side against the `want` side, each with its
// buffer's tolerance (integers exactly), added to each accumulator in `into`.
void compare_units(const CaseJob& job, const CaseBuffers& buffers, Side got, Side want, int set,
                   const ValidationContext& ctx, std::initializer_list<verify::ErrorAccumulator*> into);

// "validation trial 2/3, reference": where a fault happened.
std::string trial_stage(int t, int trials, const std::string& what);

}  // namespace ako::exec
