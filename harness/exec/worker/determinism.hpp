#pragma once
// The determinism re-run of one validation trial: candidate, reference, candidate on the same
// inputs, the second candidate run with a different shared-memory scribble. Results that differ
// bitwise between the two candidate runs mean a race or a read of uninitialised memory.
#include <cstdint>
#include <optional>

#include "exec/protocol/job.hpp"
#include "exec/worker/bound_launch.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/validation.hpp"

namespace ako::exec {

// Shared-memory scribbles of the two solution runs: zeros, then all bits set (NaN in every
// float type). A kernel that reads shared memory it never wrote sees different values.
inline constexpr uint32_t kScribbleFirst = 0x00000000u;
inline constexpr uint32_t kScribbleSecond = 0xFFFFFFFFu;

// Called after trial `t`'s first solution run passed, on set 0: keeps its results, runs the
// reference and the solution again from the same fresh contents, and compares every unit
// bitwise. A finding: incorrect (nondeterministic) or an out-of-bounds write of the second run.
std::optional<Finding> check_determinism(const CaseJob& job, const CaseBuffers& buffers, const BoundLaunch& reference,
                                         const BoundLaunch& solution, int t, const ValidationContext& ctx);

}  // namespace ako::exec
