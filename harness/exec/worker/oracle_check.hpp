#pragma once
// A reference_check case: the task's reference kernel against its fp64 oracle (tasks/README.md,
// "Oracle"), a kernel of the task's own, launched on fp64 copies of the contents the reference
// started from. No C++ in the worker knows the op.
#include <cuda.h>

#include "exec/protocol/job.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/validation.hpp"
#include "verify/gpu/buffer_comparison.hpp"

namespace ako::exec {

// Per trial (seed job.seed + t) on set 0: fresh contents, the reference run, then `oracle`
// (job.oracle's kernel) on a double copy of every floating storage (in / inout: the contents
// the reference started from; out: NaN) and a copy of every integer storage; then every
// compared unit of the reference against the oracle's on the host, with its buffer's tolerance
// (integers exactly). The reference's guards and views are checked after each of its launches:
// an out-of-bounds write is the finding (failed: this case judges the reference).
ValidationOutcome validate_reference_against_oracle(const CaseJob& job, const CaseBuffers& buffers,
                                                           const BoundLaunch& reference, CUfunction oracle,
                                                           const ValidationContext& ctx);

}  // namespace ako::exec
