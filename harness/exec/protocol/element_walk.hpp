#pragma once
// Which elements of a storage buffer one compared unit covers, and in which order (a whole
// buffer, or a strided view such as q inside the packed qkv). Pure index math, shared by the
// worker's host code (oracle comparison, outside-the-views reports) and mirrored by the support
// kernels (verify/gpu/support_kernels.cuh, AkoView), so the CPU tests pin down what the GPU does.
#include <cstdint>
#include <string>
#include <vector>

#include "model/buffer.hpp"

namespace ako::exec {

// The support kernels take at most this many dimensions (AkoView in verify/gpu/compare_stats.h).
inline constexpr size_t kMaxWalkRank = 4;

// Element j of the unit (0 <= j < count(), row-major over `extents`) is storage element
// offset + sum_k idx_k * strides[k]. Strides in elements.
struct ElementWalk {
  int64_t offset = 0;
  std::vector<int64_t> extents;
  std::vector<int64_t> strides;
  uint64_t count() const;
};

// A whole buffer of n elements: one extent n, stride 1.
ElementWalk whole_buffer(uint64_t n);

// The view's walk, simplified without changing its elements or their order: extents of 1
// dropped, a dimension merged into the one before it when it continues it (strides[k] ==
// extents[k+1] * strides[k+1]); at least one dimension. ako::Error naming `name` when more
// than kMaxWalkRank dimensions remain.
ElementWalk walk_of(const model::View& v, const std::string& name);

// The storage element of the unit's element j.
int64_t element_at(const ElementWalk& w, uint64_t j);

// The walk reordered for membership tests: dimensions of stride 0 dropped (they add no element),
// the rest by stride, largest first. ako::Error naming `name` unless every stride exceeds the
// span of the dimensions after it (non-overlapping, row-major-like: what makes the greedy
// decomposition of `covers` exact).
ElementWalk membership_order(const ElementWalk& w, const std::string& name);

// Whether storage element e is one of the walk's elements; `sorted` from membership_order.
// The greedy decomposition: the largest stride first, each index at most its extent - 1, and
// nothing may remain. ako_check_outside computes the same on the GPU.
bool covers(const ElementWalk& sorted, int64_t e);

// The unit's elements of a host copy of its storage, in the unit's order.
template <class V>
std::vector<V> gather(const std::vector<V>& storage, const ElementWalk& w) {
  std::vector<V> out(w.count());
  for (uint64_t j = 0; j < out.size(); ++j) out[j] = storage.at(static_cast<size_t>(element_at(w, j)));
  return out;
}

}  // namespace ako::exec
