// Seeded fills of fresh contents (SupportKernels::fill): normal and uniform for floating
// buffers, range for integer ones.
#include <fmt/format.h>

#include "common/error.hpp"
#include "exec/protocol/buffer_plan.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace ako::verify {

namespace {

// The init must suit the dtype: the parent checks the spec, but a job file is only JSON.
void check_init(const exec::BufferJob& b) {
  const bool integer = dtype_is_integer(b.dtype);
  const std::string& d = b.init.dist;
  if (integer && d != "range")
    throw Error(fmt::format("buffer '{}' ({}): init '{}' does not suit an integer buffer (expected range)", b.name,
                            dtype_name(b.dtype), d));
  if (!integer && d != "normal" && d != "uniform")
    throw Error(fmt::format("buffer '{}': unknown init distribution '{}' (expected normal or uniform)", b.name, d));
  if (integer && !exec::range_fits(b.dtype, b.init.low, b.init.high))
    throw Error(fmt::format("buffer '{}' ({}): init range [{}, {}) is empty or does not fit the type", b.name,
                            dtype_name(b.dtype), b.init.low, b.init.high));
}

}  // namespace

void SupportKernels::fill(const exec::BufferJob& b, CUdeviceptr p, uint64_t seed, CUstream stream) {
  check_init(b);
  const std::string op = "fill_" + b.init.dist;
  const std::string key = op + ":" + std::string(dtype_name(b.dtype));
  unsigned long long n = b.count, s = seed;
  if (b.init.dist == "range") {
    long long low = b.init.low, high = b.init.high;
    void* params[] = {&p, &n, &s, &low, &high};
    launch(key, function(op, b.dtype), n, params, stream);
    return;
  }
  float a = static_cast<float>(b.init.a), c = static_cast<float>(b.init.b);
  void* params[] = {&p, &n, &s, &a, &c};
  launch(key, function(op, b.dtype), n, params, stream);
}

}  // namespace ako::verify
