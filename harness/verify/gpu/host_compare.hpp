#pragma once
// Host side of the reference check: device buffers come back as doubles and are compared with
// the CPU double-precision reference under the same rule as the GPU compare kernel.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "model/dtype.hpp"
#include "exec/protocol/job.hpp"
#include "verify/gpu/buffer_comparison.hpp"

namespace ako::verify {

// The n elements at p (enqueued on `stream`, then synchronised), converted exactly to double.
std::vector<double> download_as_double(CUdeviceptr p, DType t, uint64_t n, CUstream stream);

// got vs want element by element; sizes must agree (ako::Error otherwise).
BufferComparison compare_on_host(const std::vector<double>& got, const std::vector<double>& want,
                                 const exec::Tolerance& tol);

}  // namespace ako::verify
