#pragma once
// Device memory of one case, in input sets (exec/protocol/buffer_plan.hpp says what a set
// holds): one copy of each `in` storage shared by both sides, per side a copy of each `out` and
// `inout` storage, and a pristine copy of each `inout` storage (the set's fresh contents). All
// of a set lives in one allocation with guard bands around each copy
// (exec/protocol/guard_layout.hpp): the kernels get 256-byte aligned interior pointers, the
// guards are filled with their pattern at construction and checked after every launch of the
// solution or the reference in validation.
// Views are not allocated: a view's address is its storage's plus the view's offset. Set 0 is
// validated; timing rotates through all sets (fresh inputs per sample). Freed with the object.
#include <cuda.h>

#include <string>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "exec/protocol/buffer_plan.hpp"
#include "exec/protocol/guard_layout.hpp"
#include "exec/protocol/job.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::exec {

// Which copies of the written storages (out and inout) a launch gets: the reference's (where
// the reference writes while validated) or the solution's (where the solution and the baselines
// write while validated). While timed, every kernel writes both in turn
// (exec/protocol/output_slots.hpp).
enum class Side { reference, solution };

// Output copy `copy` of exec::OutputSlot (0 or 1) as a side: 0 the reference's, 1 the solution's.
inline Side side_of_copy(int copy) { return copy == 0 ? Side::reference : Side::solution; }

class CaseBuffers {
 public:
  struct Guard {
    std::string buffer;       // the storage's name
    bool before = false;      // guard before the interior (else after)
    verify::SupportKernels::GuardRegion region;
  };

  // Solution copies (and the determinism spares) only when `with_solution` (reference_check
  // needs none). Fills every guard on `stream` (asynchronously). ako::Error when the plan
  // refuses the buffers (exec::plan_buffers).
  CaseBuffers(const CaseJob& job, bool with_solution, int sets, verify::SupportKernels& support, CUstream stream);

  // Bytes of one set's allocation (for choosing the number of sets before allocating).
  static uint64_t set_bytes(const CaseJob& job, bool with_solution);

  int sets() const { return static_cast<int>(sets_.size()); }
  const BufferPlan& plan() const { return plan_; }
  // Addresses for CaseJob::buffers in order (0 for absent buffers) as one side's kernels get
  // them in set `s`: the shared `in` copies, the side's own out / inout copies, views inside them.
  const std::vector<CUdeviceptr>& args(Side side, int s = 0) const {
    return side == Side::reference ? sets_.at(s).reference_args : sets_.at(s).solution_args;
  }
  // Per buffer, set `s`'s pristine copy of an inout storage (0 otherwise).
  const std::vector<CUdeviceptr>& pristine(int s = 0) const { return sets_.at(s).pristine; }
  // Guards of everything the solution gets in set `s` (in storages, its out / inout copies).
  const std::vector<Guard>& solution_guards(int s) const { return sets_.at(s).solution_guards; }
  // Guards of everything the reference gets in set `s` (in storages, its out / inout copies).
  const std::vector<Guard>& reference_guards(int s) const { return sets_.at(s).reference_guards; }
  // Guards of every copy in set `s` (in storages, both sides' out / inout copies, the pristine
  // copies): what the timed kernels write into, each side's copies in turn.
  const std::vector<Guard>& all_guards(int s) const { return sets_.at(s).all_guards; }
  // Per buffer, a plain device copy of each out / inout storage (0 otherwise): where the
  // determinism check keeps the first run's results.
  const std::vector<CUdeviceptr>& spares() const { return spare_ptrs_; }

 private:
  struct Set {
    cuda::DeviceBuffer arena;
    std::vector<CUdeviceptr> reference_args, solution_args, pristine;
    std::vector<Guard> solution_guards, reference_guards, all_guards;
  };
  Set make_set(const CaseJob& job, const std::vector<ArenaEntry>& entries, const ArenaLayout& layout, int s,
               int sets, verify::SupportKernels& support, CUstream stream) const;

  BufferPlan plan_;
  std::vector<Set> sets_;
  std::vector<cuda::DeviceBuffer> spares_;
  std::vector<CUdeviceptr> spare_ptrs_;
};

}  // namespace ako::exec
