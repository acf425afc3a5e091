#pragma once
// What the worker does with a case's buffers, decided from CaseJob::buffers alone (pure, so the
// CPU tests cover it): which device copies one input set holds, which units are compared after
// a launch, which storages must stay unchanged outside their writable views, which views are
// poisoned before a launch.
//
// Storages (buffers without a view) are allocated; views are windows into their storage and
// never allocated. Per input set: one copy of each `in` storage, shared by both sides; per side
// (reference, solution) a copy of each `out` and `inout` storage; and for each `inout` storage
// a pristine copy (the set's fresh contents, restored into both sides before every launch).
#include <cstdint>
#include <string>
#include <vector>

#include "exec/protocol/element_walk.hpp"
#include "model/buffer.hpp"

namespace ako::exec {

// One device copy of a storage in an input set's arena.
struct ArenaEntry {
  enum class Copy { shared, reference, solution, pristine };
  int buffer = 0;
  Copy copy = Copy::shared;
  uint64_t bytes = 0;
};

// In buffer order: per present storage, `in` -> shared; `out` -> reference, solution; `inout`
// -> pristine, reference, solution (solution copies only `with_solution`).
std::vector<ArenaEntry> arena_entries(const std::vector<model::Buffer>& buffers, bool with_solution);

// Bytes of a storage's device copy.
uint64_t storage_bytes(const model::Buffer& b);

// Elements of `buffer` (a storage, or a view) as they lie in `storage`.
struct BufferWalk {
  int buffer = 0;       // what a verdict names
  int storage = 0;      // where the elements live (== buffer for a whole storage)
  ElementWalk walk;
};

// A storage with writable views: every element outside all of them must keep its fresh
// contents (the pristine copy), or the kernel wrote out of bounds.
struct OutsideCheck {
  int storage = 0;
  std::vector<ElementWalk> views;   // membership_order of each writable view
  std::vector<int> view_buffers;    // their buffer indices, for the report
};

struct BufferPlan {
  // Compared after every launch under test: each present out / inout storage without a present
  // writable view over it (whole), and each present writable view (its elements only).
  std::vector<BufferWalk> compared;
  std::vector<OutsideCheck> outside;
  // Views of role out: poisoned before every launch, like out storages (their storage is inout,
  // so restoring it alone would hand the kernel its fresh contents there).
  std::vector<BufferWalk> poisoned_views;
};

// ako::Error for what the worker cannot check: a writable view of a storage that is not inout,
// a view of a view, a view that is not row-major-like or of more than kMaxWalkRank dimensions
// after merging, more than kMaxViewsPerStorage writable views of one storage.
BufferPlan plan_buffers(const std::vector<model::Buffer>& buffers);

// ako_check_outside takes the writable views of one storage in one launch (AkoViewSet).
inline constexpr size_t kMaxViewsPerStorage = 8;

// "the solution wrote outside its views into 'qkv' (3 elements changed, first at element 10,
// last at element 4107; its views: 'q', 'k')".
std::string describe_outside_write(const std::string& who, const std::string& storage, uint64_t changed,
                                   uint64_t first, uint64_t last, const std::vector<std::string>& views);

// Whether every value of an integer range [low, high) fits the dtype (an i32 buffer's bounds
// are evaluated as 64-bit expressions).
bool range_fits(DType t, int64_t low, int64_t high);

}  // namespace ako::exec
