#include "measure/gpu/l2_flush.hpp"

#include <algorithm>

namespace ako::measure {

namespace {
// Used when the device reports no L2 size: H200-class L2 (about 60 MB), doubled.
constexpr std::size_t kFallbackFlushBytes = std::size_t{128} << 20;
}  // namespace

L2Flush::L2Flush(std::size_t l2_bytes)
    : scratch_(l2_bytes ? 2 * l2_bytes : kFallbackFlushBytes, "L2 flush scratch") {}

void L2Flush::enqueue(CUstream stream) {
  exec::check(cuMemsetD32Async(scratch_.get(), ++pattern_, scratch_.bytes() / 4, stream),
              "cuMemsetD32Async(L2 flush)");
}

}  // namespace ako::measure
