#include "verify/gpu/host_compare.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "common/error.hpp"

namespace ako::verify {

namespace {

template <class V>
void check_sizes(const std::vector<V>& got, const std::vector<V>& want) {
  if (got.size() != want.size())
    throw Error("comparison of " + std::to_string(got.size()) + " values with " + std::to_string(want.size()) +
                " expected values");
}

}  // namespace

BufferComparison compare_on_host(const std::vector<double>& got, const std::vector<double>& want,
                                 const exec::Tolerance& tol) {
  check_sizes(got, want);
  BufferComparison c;
  double worst = -1;  // +inf for a non-finite pair, so only a lower index could tie it
  const double rel_floor = std::max(tol.atol, static_cast<double>(FLT_MIN));
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    const bool g_finite = std::isfinite(g), w_finite = std::isfinite(w);
    const double d = std::abs(g - w);
    ++c.checked;
    if (!w_finite) ++c.want_nonfinite;
    if (!g_finite && w_finite) ++c.nonfinite;
    if (!(g_finite && w_finite) || !(d <= tol.atol + tol.rtol * std::abs(w))) ++c.mismatches;
    const double err = g_finite && w_finite ? d : INFINITY;
    if (g_finite && w_finite) {
      c.max_abs = std::max(c.max_abs, d);
      c.max_rel = std::max(c.max_rel, d / std::max(std::abs(w), rel_floor));
    }
    if (err > worst) {
      worst = err;
      c.worst_index = static_cast<int64_t>(i);
      c.worst_got = g;
      c.worst_want = w;
    }
  }
  return c;
}

BufferComparison compare_exactly_on_host(const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
  check_sizes(got, want);
  BufferComparison c;
  double worst = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool differ = got[i] != want[i];
    // In double, so that the difference of two extreme int64 values cannot overflow.
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    const double d = differ ? std::max(std::abs(g - w), 1.0) : 0.0;
    ++c.checked;
    if (differ) ++c.mismatches;
    c.max_abs = std::max(c.max_abs, d);
    c.max_rel = std::max(c.max_rel, d / std::max(std::abs(w), static_cast<double>(FLT_MIN)));
    if (d > worst) {
      worst = d;
      c.worst_index = static_cast<int64_t>(i);
      c.worst_got = g;
      c.worst_want = w;
    }
  }
  return c;
}

}  // namespace ako::verify
