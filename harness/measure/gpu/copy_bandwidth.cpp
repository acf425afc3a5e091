// The device's copy bandwidth: the roofline that achieved GB/s is reported against.
#include <algorithm>
#include <vector>

#include "cuda/cuda_event.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "measure/gpu/timer.hpp"

namespace ako::measure {

namespace {
constexpr size_t kCopyBytes = size_t{1} << 30;   // 1 GiB each way: far beyond any L2
constexpr size_t kMinCopyBytes = size_t{64} << 20;
constexpr int kWarmupCopies = 3;
constexpr int kTimedCopies = 20;
}  // namespace

double measure_copy_bandwidth_gbs(CUstream stream) {
  size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  // Source and destination, leaving half of the free memory alone.
  const size_t bytes = std::max(kMinCopyBytes, std::min(kCopyBytes, free_bytes / 4) & ~size_t{0xfff});
  cuda::DeviceBuffer src(bytes, "copy bandwidth source"), dst(bytes, "copy bandwidth destination");
  cuda::check(cuMemsetD32Async(src.get(), 0x3f800000u, bytes / 4, stream), "cuMemsetD32Async(copy source)");

  for (int i = 0; i < kWarmupCopies; ++i)
    cuda::check(cuMemcpyDtoDAsync(dst.get(), src.get(), bytes, stream), "cuMemcpyDtoDAsync(warm-up)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(copy warm-up)");

  // Events are accurate here: a copy of this size takes most of a millisecond, far above
  // their few microseconds of launch overhead.
  cuda::CudaEvent start, stop;
  std::vector<double> gbs;
  for (int i = 0; i < kTimedCopies; ++i) {
    start.record(stream);
    cuda::check(cuMemcpyDtoDAsync(dst.get(), src.get(), bytes, stream), "cuMemcpyDtoDAsync");
    stop.record(stream);
    cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(copy)");
    const double seconds = cuda::CudaEvent::elapsed_ms(start, stop) * 1e-3;
    gbs.push_back(2.0 * static_cast<double>(bytes) / seconds / 1e9);  // read + write
  }
  std::nth_element(gbs.begin(), gbs.begin() + gbs.size() / 2, gbs.end());
  return gbs[gbs.size() / 2];
}

}  // namespace ako::measure
