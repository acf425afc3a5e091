#pragma once
// The correctness protocol of one case (SPEC.md): per trial, fresh seeded inputs, outputs
// poisoned before every launch, every output buffer compared; NaN/Inf never pass.
#include <cuda.h>

#include <string>

#include "exec/protocol/job.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "verify/cpu/cpu_reference.hpp"
#include "verify/gpu/buffer_comparison.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

struct ValidationContext {
  CUstream stream;
  verify::SupportKernels& support;
  std::string* stage;   // updated as validation proceeds, for fault messages
};

// Solution against the reference kernel, both on the GPU, over job.trials input sets
// (trial t seeded with job.seed + t). The inputs of the last trial stay in the buffers.
verify::ErrorAccumulator validate_against_reference(const CaseJob& job, const CaseBuffers& buffers,
                                                    const BoundLaunch& reference,
                                                    const BoundLaunch& solution,
                                                    const ValidationContext& ctx);

// The reference kernel against the CPU double-precision reference of job.op.
verify::ErrorAccumulator validate_reference_on_cpu(const CaseJob& job, const CaseBuffers& buffers,
                                                   const BoundLaunch& reference,
                                                   verify::CpuReferenceFn cpu_reference,
                                                   const ValidationContext& ctx);

}  // namespace ako::exec
