#pragma once
// Out-of-bounds writes of the solution (or a baseline on its buffers), and of the reference on
// its own: bytes changed in the guard bands around its copies, and elements changed in an inout
// storage outside every writable view over it (the view is all the kernel may write).
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

// The reference's side right after a reference launch in validation: the guards of what it
// gets in set `set` (in storages, its out / inout copies) and the contents outside the writable
// views of its inout copies. In a compare case a finding is the reference's
// (exec/protocol/reference_blame.hpp: skipped, fault reference_out_of_bounds_write), so a
// solution is never blamed for damage the reference did; in a reference_check case it is that
// check's own failure (failed, out_of_bounds_write). Synchronises.
std::optional<Finding> check_reference_writes(const CaseJob& job, const CaseBuffers& buffers, int set,
                                             const ValidationContext& ctx);

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
