#pragma once
// Device memory of one case, in input sets. A set holds one copy of every present input and
// weight (shared by both kernels) and, per output, a reference copy and a solution copy, all in
// one allocation with guard bands around each buffer (exec/protocol/guard_layout.hpp): the
// kernels get 256-byte aligned interior pointers, the guards are filled with their pattern at
// construction and checked after solution launches. Set 0 is validated; timing rotates through
// all sets (fresh inputs per sample). Freed with the object.
#include <cuda.h>

#include <string>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "exec/protocol/guard_layout.hpp"
#include "exec/protocol/job.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

class CaseBuffers {
 public:
  struct Guard {
    std::string buffer;       // the BufferJob's name
    bool before = false;      // guard before the interior (else after)
    verify::SupportKernels::GuardRegion region;
  };

  // Solution copies (and the determinism spares) only when `with_solution` (reference_check
  // needs none). Fills every guard on `stream` (asynchronously).
  CaseBuffers(const CaseJob& job, bool with_solution, int sets, verify::SupportKernels& support, CUstream stream);

  // Bytes of one set's allocation (for choosing the number of sets before allocating).
  static uint64_t set_bytes(const CaseJob& job, bool with_solution);

  int sets() const { return static_cast<int>(sets_.size()); }
  // Addresses for CaseJob::buffers in order (0 for absent buffers), as the reference or the
  // solution sees them in set `s`: the same inputs, each its own outputs.
  const std::vector<CUdeviceptr>& reference_view(int s = 0) const { return sets_.at(s).reference_view; }
  const std::vector<CUdeviceptr>& solution_view(int s = 0) const { return sets_.at(s).solution_view; }
  // Set `s` with its outputs in copy `copy`: 0 the reference's, 1 the solution's (timing
  // writes both, exec/protocol/output_slots.hpp).
  const std::vector<CUdeviceptr>& view(int s, int copy) const { return copy == 0 ? reference_view(s) : solution_view(s); }
  // Guards of everything the solution gets in set `s` (inputs, weights, its outputs).
  const std::vector<Guard>& solution_guards(int s) const { return sets_.at(s).solution_guards; }
  // Guards of everything in set `s` (inputs, weights, both copies of the outputs): what the
  // timed kernels write into.
  const std::vector<Guard>& all_guards(int s) const { return sets_.at(s).all_guards; }
  // Per buffer, a plain device copy for output buffers (0 otherwise): where the determinism
  // check keeps the first run's output.
  const std::vector<CUdeviceptr>& spare_outputs() const { return spare_view_; }

 private:
  struct Set {
    cuda::DeviceBuffer arena;
    std::vector<CUdeviceptr> reference_view, solution_view;
    std::vector<Guard> solution_guards, all_guards;
  };
  std::vector<Set> sets_;
  std::vector<cuda::DeviceBuffer> spares_;
  std::vector<CUdeviceptr> spare_view_;
};

}  // namespace ako::exec
