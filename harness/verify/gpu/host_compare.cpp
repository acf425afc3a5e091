#include "verify/gpu/host_compare.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "verify/cpu/half_convert.hpp"

namespace ako::verify {

std::vector<double> download_as_double(CUdeviceptr p, DType t, uint64_t n, CUstream stream) {
  std::vector<unsigned char> raw(n * dtype_size(t));
  cuda::check(cuMemcpyDtoHAsync(raw.data(), p, raw.size(), stream), "cuMemcpyDtoHAsync(to host)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(to host)");
  std::vector<double> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    if (t == DType::fp32) {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      out[i] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, raw.data() + 2 * i, 2);
      out[i] = t == DType::bf16 ? bf16_to_float(h) : fp16_to_float(h);
    }
  }
  return out;
}

BufferComparison compare_on_host(const std::vector<double>& got, const std::vector<double>& want,
                                 const exec::Tolerance& tol) {
  if (got.size() != want.size())
    throw Error("comparison of " + std::to_string(got.size()) + " values with " +
                std::to_string(want.size()) + " expected values");
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

}  // namespace ako::verify
