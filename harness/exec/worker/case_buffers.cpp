#include "exec/worker/case_buffers.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ako::exec {

namespace {

std::vector<uint64_t> sizes_of(const std::vector<ArenaEntry>& entries) {
  std::vector<uint64_t> bytes;
  for (const ArenaEntry& e : entries) bytes.push_back(e.bytes);
  return bytes;
}

// Views get addresses inside their storage's copy, on each side (after every storage has one).
void point_views(const CaseJob& job, std::vector<CUdeviceptr>& args) {
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || !b.view || !args[b.view->of]) continue;
    args[i] = args[b.view->of] + static_cast<CUdeviceptr>(b.view->offset) * dtype_size(job.buffers[b.view->of].dtype);
  }
}

}  // namespace

uint64_t CaseBuffers::set_bytes(const CaseJob& job, bool with_solution) {
  return layout_arena(sizes_of(arena_entries(job.buffers, with_solution))).total_bytes;
}

CaseBuffers::Set CaseBuffers::make_set(const CaseJob& job, const std::vector<ArenaEntry>& entries,
                                       const ArenaLayout& layout, int s, int sets, verify::SupportKernels& support,
                                       CUstream stream) const {
  using Copy = ArenaEntry::Copy;
  Set set;
  set.arena = cuda::DeviceBuffer(layout.total_bytes, fmt::format("input set {} of {}", s + 1, sets));
  set.reference_args.assign(job.buffers.size(), 0);
  set.solution_args.assign(job.buffers.size(), 0);
  set.pristine.assign(job.buffers.size(), 0);
  for (size_t e = 0; e < entries.size(); ++e) {
    const ArenaEntry& en = entries[e];
    const GuardedSlot& slot = layout.slots[e];
    const CUdeviceptr interior = set.arena.get() + slot.interior_offset;
    if (en.copy == Copy::shared || en.copy == Copy::reference) set.reference_args[en.buffer] = interior;
    if (en.copy == Copy::shared || en.copy == Copy::solution) set.solution_args[en.buffer] = interior;
    if (en.copy == Copy::pristine) set.pristine[en.buffer] = interior;
    // Distinct patterns per set, slot and side, derived from the case's seed.
    const uint64_t salt = verify::SupportKernels::buffer_seed(job.seed ^ 0x6775617264ull, s * 4096 + static_cast<int>(e));
    const verify::SupportKernels::GuardRegion before{set.arena.get() + slot.before_offset, kGuardBytes, salt};
    const verify::SupportKernels::GuardRegion after{interior + slot.bytes, slot.after_bytes, salt ^ 0xa5a5a5a5ull};
    support.guard_fill(before, stream);
    support.guard_fill(after, stream);
    const std::string& name = job.buffers[en.buffer].name;
    if (en.copy == Copy::shared || en.copy == Copy::solution) {
      set.solution_guards.push_back({name, true, before});
      set.solution_guards.push_back({name, false, after});
    }
    if (en.copy == Copy::shared || en.copy == Copy::reference) {
      set.reference_guards.push_back({name, true, before});
      set.reference_guards.push_back({name, false, after});
    }
    set.all_guards.push_back({name, true, before});
    set.all_guards.push_back({name, false, after});
  }
  point_views(job, set.reference_args);
  point_views(job, set.solution_args);
  return set;
}

CaseBuffers::CaseBuffers(const CaseJob& job, bool with_solution, int sets, verify::SupportKernels& support,
                         CUstream stream)
    : plan_(plan_buffers(job.buffers)) {
  const std::vector<ArenaEntry> entries = arena_entries(job.buffers, with_solution);
  const ArenaLayout layout = layout_arena(sizes_of(entries));
  for (int s = 0; s < std::max(1, sets); ++s)
    sets_.push_back(make_set(job, entries, layout, s, std::max(1, sets), support, stream));
  spare_ptrs_.assign(job.buffers.size(), 0);
  if (!with_solution) return;
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view || !model::role_writes(b.role)) continue;
    spare_ptrs_[i] = spares_.emplace_back(storage_bytes(b), b.name + ", determinism copy").get();
  }
}

}  // namespace ako::exec
