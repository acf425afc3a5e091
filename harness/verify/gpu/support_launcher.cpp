#include "verify/gpu/support_launcher.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "cuda/fault.hpp"

namespace ako::verify {

namespace {

constexpr unsigned kBlock = 256;          // the support kernels' launch contract
constexpr unsigned kBlocksPerSm = 16;     // enough to saturate HBM with grid-stride loops

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
  cuda::check(cuLaunchKernel(fn, grid, 1, 1, kBlock, 1, 1, 0, stream, params, nullptr),
              "cuLaunchKernel(support " + key + ")");
}

double SupportKernels::clock_mhz(CUstream stream) {
  const CUfunction fn = lookup_("clock_probe:u64");
  if (!clock_out_) clock_out_ = cuda::DeviceBuffer(2 * sizeof(unsigned long long));
  CUdeviceptr out = clock_out_.get();
  unsigned long long min_ns = 50000;   // %globaltimer's coarse ticks stay under 2% of this
  void* params[] = {&out, &min_ns};
  cuda::check(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel(support clock_probe)");
  unsigned long long got[2] = {0, 0};
  cuda::check(cuMemcpyDtoHAsync(got, out, sizeof(got), stream), "cuMemcpyDtoHAsync(clock probe)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(clock probe)");
  return got[0] > 0 ? 1e3 * static_cast<double>(got[1]) / static_cast<double>(got[0]) : 0.0;
}

}  // namespace ako::verify

namespace ako::verify {

void SupportKernels::guard_fill(const GuardRegion& g, CUstream stream) {
  CUdeviceptr p = g.p;
  unsigned long long n = g.bytes, salt = g.salt;
  void* params[] = {&p, &n, &salt};
  launch("guard_fill:u8", lookup_("guard_fill:u8"), n, params, stream);
}

std::vector<SupportKernels::GuardCounts> SupportKernels::guard_check(const std::vector<GuardRegion>& regions,
                                                                     CUstream stream) {
  std::vector<GuardCounts> out(regions.size());
  if (regions.empty()) return out;
  const size_t bytes = regions.size() * 3 * sizeof(unsigned long long);
  if (guard_stats_.bytes() < bytes) guard_stats_ = cuda::DeviceBuffer(bytes, "guard statistics");
  cuda::check(cuMemsetD8Async(guard_stats_.get(), 0, bytes, stream), "cuMemsetD8Async(guard statistics)");
  const CUfunction fn = lookup_("guard_check:u8");
  for (size_t i = 0; i < regions.size(); ++i) {
    CUdeviceptr p = regions[i].p;
    unsigned long long n = regions[i].bytes, salt = regions[i].salt;
    CUdeviceptr stats = guard_stats_.get() + i * 3 * sizeof(unsigned long long);
    void* params[] = {&p, &n, &salt, &stats};
    launch("guard_check:u8", fn, n, params, stream);
  }
  std::vector<unsigned long long> host(regions.size() * 3);
  cuda::check(cuMemcpyDtoHAsync(host.data(), guard_stats_.get(), bytes, stream),
              "cuMemcpyDtoHAsync(guard statistics)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(guard check)");
  for (size_t i = 0; i < regions.size(); ++i) {
    out[i].changed = host[3 * i];
    out[i].first = ~host[3 * i + 1];
    out[i].last = host[3 * i + 2];
  }
  return out;
}

void SupportKernels::scribble_shared(uint32_t pattern, CUstream stream) {
  const CUfunction fn = lookup_("smem_scribble:u32");
  if (scribble_bytes_ < 0) {
    CUdevice dev;
    cuda::check(cuCtxGetDevice(&dev), "cuCtxGetDevice");
    int optin = 0;
    cuda::check(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
                "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
    cuda::check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin),
                "cuFuncSetAttribute(support smem_scribble)");
    scribble_bytes_ = optin;
  }
  unsigned int pat = pattern;
  unsigned long long words = static_cast<unsigned long long>(scribble_bytes_) / sizeof(unsigned int);
  void* params[] = {&pat, &words};
  // One block per SM: each needs all of an SM's shared memory, so no two share one.
  cuda::check(cuLaunchKernel(fn, static_cast<unsigned>(sm_count_), 1, 1, kBlock, 1, 1,
                             static_cast<unsigned>(scribble_bytes_), stream, params, nullptr),
              "cuLaunchKernel(support smem_scribble)");
}

}  // namespace ako::verify
