#pragma once
// Device memory of one case: one allocation per present input or weight (shared by both
// kernels) and, per output, a reference copy and a solution copy. Freed with the object.
#include <cuda.h>

#include <vector>

#include "exec/protocol/job.hpp"
#include "exec/worker/device_buffer.hpp"

namespace ako::exec {

class CaseBuffers {
 public:
  // Solution copies are allocated only when `with_solution` (reference_check needs none).
  CaseBuffers(const CaseJob& job, bool with_solution);

  // Addresses for CaseJob::buffers in order (0 for absent buffers), as the reference or the
  // solution sees them: the same inputs, each its own outputs.
  const std::vector<CUdeviceptr>& reference_view() const { return reference_view_; }
  const std::vector<CUdeviceptr>& solution_view() const { return solution_view_; }

 private:
  std::vector<DeviceBuffer> owned_;
  std::vector<CUdeviceptr> reference_view_, solution_view_;
};

}  // namespace ako::exec
