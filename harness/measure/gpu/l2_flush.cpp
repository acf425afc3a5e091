#include "measure/gpu/l2_flush.hpp"

#include <algorithm>

namespace ako::measure {

namespace {
// Used when the device reports no L2 size: H200-class L2 (about 60 MB), doubled.
constexpr std::size_t kFallbackFlushBytes = std::size_t{128} << 20;
}  // namespace

L2Flush::L2Flush(std::size_t l2_bytes, CUfunction evict)
    : scratch_(l2_bytes ? 2 * l2_bytes : kFallbackFlushBytes, "L2 flush scratch"), evict_(evict) {
  // The evict kernel reads it: defined contents once (and initcheck stays quiet).
  if (evict_) cuda::check(cuMemsetD32(scratch_.get(), 0, scratch_.bytes() / 4), "cuMemsetD32(L2 flush scratch)");
}

void L2Flush::enqueue(CUstream stream) {
  if (!evict_) {
    cuda::check(cuMemsetD32Async(scratch_.get(), ++pattern_, scratch_.bytes() / 4, stream),
                "cuMemsetD32Async(L2 flush)");
    return;
  }
  CUdeviceptr p = scratch_.get();
  unsigned long long n = scratch_.bytes() / sizeof(unsigned long long);
  unsigned long long never = 0x9e3779b97f4a7c15ull;   // the buffer is zeros: its XOR is 0
  void* params[] = {&p, &n, &never, &p};
  cuda::check(cuLaunchKernel(evict_, 1024, 1, 1, 256, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel(L2 flush)");
}

}  // namespace ako::measure
