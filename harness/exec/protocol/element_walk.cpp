#include "exec/protocol/element_walk.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::exec {

uint64_t ElementWalk::count() const {
  uint64_t n = 1;
  for (int64_t e : extents) n *= static_cast<uint64_t>(e);
  return n;
}

ElementWalk whole_buffer(uint64_t n) { return ElementWalk{0, {static_cast<int64_t>(n)}, {1}}; }

ElementWalk walk_of(const model::View& v, const std::string& name) {
  ElementWalk w;
  w.offset = v.offset;
  for (size_t k = 0; k < v.extents.size(); ++k) {
    const int64_t e = v.extents[k], s = v.strides[k];
    if (e == 1) continue;   // one index: moves nothing
    // The previous dimension steps over exactly this one's span: one dimension, same order.
    if (!w.extents.empty() && w.strides.back() == e * s) {
      w.extents.back() *= e;
      w.strides.back() = s;
      continue;
    }
    w.extents.push_back(e);
    w.strides.push_back(s);
  }
  if (w.extents.empty()) {
    w.extents.push_back(1);
    w.strides.push_back(1);
  }
  if (w.extents.size() > kMaxWalkRank)
    throw Error(fmt::format("view '{}' has {} dimensions that do not merge (extents [{}], strides [{}]); the worker "
                            "compares at most {}",
                            name, w.extents.size(), fmt::join(v.extents, ", "), fmt::join(v.strides, ", "),
                            kMaxWalkRank));
  return w;
}

int64_t element_at(const ElementWalk& w, uint64_t j) {
  int64_t e = w.offset;
  for (size_t k = w.extents.size(); k-- > 0;) {
    const uint64_t extent = static_cast<uint64_t>(w.extents[k]);
    e += static_cast<int64_t>(j % extent) * w.strides[k];
    j /= extent;
  }
  return e;
}

ElementWalk membership_order(const ElementWalk& w, const std::string& name) {
  std::vector<size_t> dims;
  for (size_t k = 0; k < w.extents.size(); ++k)
    if (w.strides[k] != 0 && w.extents[k] > 1) dims.push_back(k);
  std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) { return w.strides[a] > w.strides[b]; });
  ElementWalk out;
  out.offset = w.offset;
  for (size_t k : dims) {
    out.extents.push_back(w.extents[k]);
    out.strides.push_back(w.strides[k]);
  }
  if (out.extents.empty()) {   // a single element
    out.extents.push_back(1);
    out.strides.push_back(1);
  }
  // Innermost first: each stride must step past everything the dimensions inside it reach.
  int64_t span = 1;
  for (size_t k = out.extents.size(); k-- > 0;) {
    if (out.strides[k] < span)
      throw Error(fmt::format("view '{}' is not row-major-like (extents [{}], strides [{}]): its elements overlap or "
                              "interleave, so the worker cannot tell what lies outside it",
                              name, fmt::join(w.extents, ", "), fmt::join(w.strides, ", ")));
    span = out.strides[k] * (out.extents[k] - 1) + span;
  }
  return out;
}

bool covers(const ElementWalk& sorted, int64_t e) {
  int64_t r = e - sorted.offset;
  if (r < 0) return false;
  for (size_t k = 0; k < sorted.extents.size(); ++k) {
    const int64_t idx = r / sorted.strides[k];
    if (idx >= sorted.extents[k]) return false;
    r -= idx * sorted.strides[k];
  }
  return r == 0;
}

}  // namespace ako::exec
