#pragma once
// Out-of-bounds writes of the solution (or a baseline on its buffers): bytes changed in the
// guard bands around its copies, and elements changed in an inout storage outside every
// writable view over it (the view is all the kernel may write).
#include <optional>
#include <string>

#include "exec/protocol/job.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/validation.hpp"

namespace ako::exec {

// The guards and the outside-the-views contents of the solution's side in set `set`; a finding
// (failed, out_of_bounds_write) when any changed. Synchronises. `who` names the kernel in the
// reason ("the solution", "the baseline flashinfer").
std::optional<Finding> check_solution_writes(const CaseJob& job, const CaseBuffers& buffers, int set,
                                             const ValidationContext& ctx, const std::string& who = "the solution");

// After timing, where every timed kernel wrote both sides' copies in turn: the guards of every
// copy in set `set` (CaseBuffers::all_guards). Synchronises.
std::optional<Finding> check_all_guards(const CaseBuffers& buffers, int set, const ValidationContext& ctx,
                                        const std::string& who = "the solution");

// The contents outside the writable views of `side`'s inout copies in set `set`, against the
// set's pristine copy: what the last launch into those copies wrote there (each launch restores
// them first). Synchronises.
std::optional<Finding> check_outside_views(const CaseJob& job, const CaseBuffers& buffers, Side side, int set,
                                           const ValidationContext& ctx, const std::string& who = "the solution");

}  // namespace ako::exec
