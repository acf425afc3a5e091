#include "verify/gpu/support_launcher.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "exec/worker/fault.hpp"
#include "verify/gpu/compare_stats.h"

namespace ako::verify {

namespace {

constexpr unsigned kBlock = 256;          // the support kernels' launch contract
constexpr unsigned kBlocksPerSm = 16;     // enough to saturate HBM with grid-stride loops

BufferComparison from_device(const AkoCompareStats& s) {
  BufferComparison c;
  c.checked = s.checked;
  c.mismatches = s.mismatches;
  c.nonfinite = s.nonfinite;
  c.want_nonfinite = s.want_nonfinite;
  c.max_abs = s.max_abs;
  c.max_rel = s.max_rel;
  c.worst_index = s.checked ? static_cast<int64_t>(s.worst_index) : -1;
  c.worst_got = s.worst_got;
  c.worst_want = s.worst_want;
  return c;
}

}  // namespace

SupportKernels::SupportKernels(SupportLookup lookup, int sm_count)
    : lookup_(std::move(lookup)), sm_count_(std::max(1, sm_count)) {}

uint64_t SupportKernels::buffer_seed(uint64_t trial_seed, int buffer_index) {
  // splitmix64 of the pair: neighbouring trials and buffers get unrelated streams.
  uint64_t z = trial_seed + 0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(buffer_index) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

CUfunction SupportKernels::function(const std::string& op, DType t) const {
  return lookup_(op + ":" + std::string(dtype_name(t)));
}

void SupportKernels::launch(const std::string& key, CUfunction fn, uint64_t n, void** params,
                            CUstream stream) const {
  const uint64_t wanted = (n + kBlock - 1) / kBlock;
  const unsigned grid = static_cast<unsigned>(
      std::clamp<uint64_t>(wanted, 1, static_cast<uint64_t>(sm_count_) * kBlocksPerSm));
  exec::check(cuLaunchKernel(fn, grid, 1, 1, kBlock, 1, 1, 0, stream, params, nullptr),
              "cuLaunchKernel(support " + key + ")");
}

void SupportKernels::fill(const exec::BufferJob& b, CUdeviceptr p, uint64_t seed, CUstream stream) {
  if (b.init.dist != "normal" && b.init.dist != "uniform")
    throw Error("buffer '" + b.name + "': unknown init distribution '" + b.init.dist +
                "' (expected normal or uniform)");
  const std::string op = "fill_" + b.init.dist;
  unsigned long long n = b.count, s = seed;
  float a = static_cast<float>(b.init.a), c = static_cast<float>(b.init.b);
  void* params[] = {&p, &n, &s, &a, &c};
  launch(op + ":" + std::string(dtype_name(b.dtype)), function(op, b.dtype), n, params, stream);
}

void SupportKernels::poison(DType t, CUdeviceptr p, uint64_t n, CUstream stream) {
  unsigned long long count = n;
  void* params[] = {&p, &count};
  launch("poison:" + std::string(dtype_name(t)), function("poison", t), n, params, stream);
}

BufferComparison SupportKernels::compare(DType t, CUdeviceptr got, CUdeviceptr want, uint64_t n,
                                         const exec::Tolerance& tol, CUstream stream) {
  if (!stats_) stats_ = exec::DeviceBuffer(sizeof(AkoCompareStats), "compare statistics");
  exec::check(cuMemsetD8Async(stats_.get(), 0, sizeof(AkoCompareStats), stream),
              "cuMemsetD8Async(compare statistics)");
  unsigned long long count = n;
  float atol = static_cast<float>(tol.atol), rtol = static_cast<float>(tol.rtol);
  CUdeviceptr stats = stats_.get();
  void* params[] = {&got, &want, &count, &atol, &rtol, &stats};
  launch("compare:" + std::string(dtype_name(t)), function("compare", t), n, params, stream);
  AkoCompareStats host{};
  exec::check(cuMemcpyDtoHAsync(&host, stats_.get(), sizeof host, stream),
              "cuMemcpyDtoHAsync(compare statistics)");
  exec::check(cuStreamSynchronize(stream), "cuStreamSynchronize(compare)");
  return from_device(host);
}

}  // namespace ako::verify
