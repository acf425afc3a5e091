#include "exec/protocol/buffer_plan.hpp"

#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::exec {

namespace {

bool writable_view(const model::Buffer& b) { return b.present && b.view && model::role_writes(b.role); }

// The storage of present view i, checked as far as the worker relies on it: support kernels
// walk the view's elements in the storage's copy, so they must all lie inside it.
int checked_storage(const std::vector<model::Buffer>& buffers, size_t i) {
  const model::Buffer& b = buffers[i];
  const int of = b.view->of;
  if (of < 0 || static_cast<size_t>(of) >= buffers.size() || buffers[of].view || !buffers[of].present)
    throw Error(fmt::format("view '{}' names buffer {}, which is not a present storage buffer", b.name, of));
  int64_t last = b.view->offset;
  for (size_t k = 0; k < b.view->extents.size(); ++k) {
    if (b.view->strides[k] < 0) throw Error(fmt::format("view '{}' has a negative stride", b.name));
    last += (b.view->extents[k] - 1) * b.view->strides[k];
  }
  if (b.view->offset < 0 || static_cast<uint64_t>(last) >= buffers[of].count)
    throw Error(fmt::format("view '{}' reaches elements {} to {} of '{}', which has {}", b.name, b.view->offset, last,
                            buffers[of].name, buffers[of].count));
  if (model::role_writes(b.role) && buffers[of].role != model::Role::inout)
    throw Error(fmt::format("view '{}' is written, so its storage '{}' must have role inout", b.name, buffers[of].name));
  return of;
}

OutsideCheck outside_check(const std::vector<model::Buffer>& buffers, int storage, const std::vector<int>& views) {
  if (views.size() > kMaxViewsPerStorage)
    throw Error(fmt::format("'{}' has {} writable views; the worker checks at most {} per buffer",
                            buffers[storage].name, views.size(), kMaxViewsPerStorage));
  OutsideCheck c;
  c.storage = storage;
  for (int v : views) {
    const std::string& name = buffers[v].name;
    c.views.push_back(membership_order(walk_of(*buffers[v].view, name), name));
    c.view_buffers.push_back(v);
  }
  return c;
}

}  // namespace

uint64_t storage_bytes(const model::Buffer& b) { return b.count * dtype_size(b.dtype); }

std::vector<ArenaEntry> arena_entries(const std::vector<model::Buffer>& buffers, bool with_solution) {
  using Copy = ArenaEntry::Copy;
  std::vector<ArenaEntry> out;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const model::Buffer& b = buffers[i];
    if (!b.present || b.view) continue;
    const int idx = static_cast<int>(i);
    const uint64_t bytes = storage_bytes(b);
    if (b.role == model::Role::in) {
      out.push_back({idx, Copy::shared, bytes});
      continue;
    }
    if (b.role == model::Role::inout) out.push_back({idx, Copy::pristine, bytes});
    out.push_back({idx, Copy::reference, bytes});
    if (with_solution) out.push_back({idx, Copy::solution, bytes});
  }
  return out;
}

BufferPlan plan_buffers(const std::vector<model::Buffer>& buffers) {
  BufferPlan plan;
  std::vector<std::vector<int>> writable(buffers.size());   // per storage: its writable views
  std::vector<int> storage_of(buffers.size(), -1);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].present || !buffers[i].view) continue;
    storage_of[i] = checked_storage(buffers, i);
    if (writable_view(buffers[i])) writable[storage_of[i]].push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const model::Buffer& b = buffers[i];
    const int idx = static_cast<int>(i);
    if (!b.present || !model::role_writes(b.role)) continue;
    if (!b.view) {
      if (writable[i].empty()) plan.compared.push_back({idx, idx, whole_buffer(b.count)});
      continue;
    }
    const BufferWalk unit{idx, storage_of[i], walk_of(*b.view, b.name)};
    plan.compared.push_back(unit);
    if (b.role == model::Role::out) plan.poisoned_views.push_back(unit);
  }
  for (size_t s = 0; s < buffers.size(); ++s)
    if (!writable[s].empty()) plan.outside.push_back(outside_check(buffers, static_cast<int>(s), writable[s]));
  return plan;
}

std::string describe_outside_write(const std::string& who, const std::string& storage, uint64_t changed,
                                   uint64_t first, uint64_t last, const std::vector<std::string>& views) {
  std::string names;
  for (const std::string& v : views) names += (names.empty() ? "'" : ", '") + v + "'";
  const std::string where = changed == 1 ? fmt::format("at element {}", first)
                                         : fmt::format("first at element {}, last at element {}", first, last);
  return fmt::format("{} wrote outside its views into '{}' ({} element{} changed, {}; its views: {})", who, storage,
                     changed, changed == 1 ? "" : "s", where, names);
}

bool range_fits(DType t, int64_t low, int64_t high) {
  if (low >= high) return false;
  if (t == DType::i64) return true;
  if (t != DType::i32) return false;
  return low >= std::numeric_limits<int32_t>::min() && high - 1 <= std::numeric_limits<int32_t>::max();
}

}  // namespace ako::exec
