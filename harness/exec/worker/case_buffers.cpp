#include "exec/worker/case_buffers.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ako::exec {

namespace {

// One arena slot: which buffer, and whether it is the solution's copy of an output.
struct Entry {
  int buffer = 0;
  bool solution_copy = false;   // outputs: solution's copy (else the reference's); inputs: shared
  uint64_t bytes = 0;
};

std::vector<Entry> entries_of(const CaseJob& job, bool with_solution) {
  std::vector<Entry> out;
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present) continue;
    const uint64_t bytes = b.count * dtype_size(b.dtype);
    out.push_back({static_cast<int>(i), false, bytes});
    if (b.role == BufferRole::output && with_solution) out.push_back({static_cast<int>(i), true, bytes});
  }
  return out;
}

std::vector<uint64_t> sizes_of(const std::vector<Entry>& entries) {
  std::vector<uint64_t> bytes;
  for (const Entry& e : entries) bytes.push_back(e.bytes);
  return bytes;
}

}  // namespace

uint64_t CaseBuffers::set_bytes(const CaseJob& job, bool with_solution) {
  return layout_arena(sizes_of(entries_of(job, with_solution))).total_bytes;
}

CaseBuffers::CaseBuffers(const CaseJob& job, bool with_solution, int sets, verify::SupportKernels& support,
                         CUstream stream) {
  const std::vector<Entry> entries = entries_of(job, with_solution);
  const ArenaLayout layout = layout_arena(sizes_of(entries));
  for (int s = 0; s < std::max(1, sets); ++s) {
    Set set;
    set.arena = cuda::DeviceBuffer(layout.total_bytes, fmt::format("input set {} of {}", s + 1, sets));
    set.reference_view.assign(job.buffers.size(), 0);
    set.solution_view.assign(job.buffers.size(), 0);
    for (size_t e = 0; e < entries.size(); ++e) {
      const Entry& en = entries[e];
      const GuardedSlot& slot = layout.slots[e];
      const BufferJob& b = job.buffers[en.buffer];
      const CUdeviceptr interior = set.arena.get() + slot.interior_offset;
      const bool output = b.role == BufferRole::output;
      if (!output || !en.solution_copy) set.reference_view[en.buffer] = interior;
      if (!output || en.solution_copy) set.solution_view[en.buffer] = interior;
      // Distinct patterns per set, slot and side, derived from the case's seed.
      const uint64_t salt = verify::SupportKernels::buffer_seed(job.seed ^ 0x6775617264ull, s * 4096 + static_cast<int>(e));
      const verify::SupportKernels::GuardRegion before{set.arena.get() + slot.before_offset, kGuardBytes, salt};
      const verify::SupportKernels::GuardRegion after{interior + slot.bytes, slot.after_bytes, salt ^ 0xa5a5a5a5ull};
      support.guard_fill(before, stream);
      support.guard_fill(after, stream);
      if (!output || en.solution_copy) {
        set.solution_guards.push_back({b.name, true, before});
        set.solution_guards.push_back({b.name, false, after});
      }
      set.all_guards.push_back({b.name, true, before});
      set.all_guards.push_back({b.name, false, after});
    }
    sets_.push_back(std::move(set));
  }
  spare_view_.assign(job.buffers.size(), 0);
  if (!with_solution) return;
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.role != BufferRole::output) continue;
    spare_view_[i] = spares_.emplace_back(b.count * dtype_size(b.dtype), b.name + ", determinism copy").get();
  }
}

}  // namespace ako::exec
