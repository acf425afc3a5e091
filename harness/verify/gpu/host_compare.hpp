#pragma once
// Host side of the reference check: the reference kernel's outputs and the fp64 oracle's, both
// brought to the host (verify/gpu/host_download.hpp), compared under the same rules as the GPU
// compare kernel (compare_stats.h). Pure: the CPU tests cover it.
#include <cstdint>
#include <vector>

#include "exec/protocol/job.hpp"
#include "verify/gpu/buffer_comparison.hpp"

namespace ako::verify {

// got vs want element by element with a tolerance; sizes must agree (ako::Error otherwise).
BufferComparison compare_on_host(const std::vector<double>& got, const std::vector<double>& want,
                                 const exec::Tolerance& tol);

// Integers: a mismatch is any difference; the error |got - want| (at least 1 for a mismatch)
// ranks the worst element. Sizes must agree.
BufferComparison compare_exactly_on_host(const std::vector<int64_t>& got, const std::vector<int64_t>& want);

}  // namespace ako::verify
