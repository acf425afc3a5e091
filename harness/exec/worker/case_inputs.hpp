#pragma once
// What the buffers hold before a launch: fresh random contents per trial (in storages, and the
// pristine copy of each inout storage), and before every launch of a side, outputs poisoned and
// in-place buffers restored to the set's fresh contents, so each launch starts from exactly
// what the other side started from.
#include <cuda.h>

#include <cstdint>

#include "exec/protocol/job.hpp"
#include "exec/worker/case_buffers.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

// Fresh contents of set `set` from `seed`: every present in storage and the pristine copy of
// every present inout storage (views have no contents of their own). Asynchronous.
void fill_inputs(const CaseJob& job, const CaseBuffers& buffers, int set, uint64_t seed,
                 verify::SupportKernels& support, CUstream stream);

// Before a launch of `side` on set `set`: its out storages poisoned (all bits set: NaN, or -1),
// its inout storages copied from the pristine copy, then its out views (inside inout storages)
// poisoned. Asynchronous; outside any timed window.
void prepare_launch(const CaseJob& job, const CaseBuffers& buffers, Side side, int set,
                    verify::SupportKernels& support, CUstream stream);

}  // namespace ako::exec
