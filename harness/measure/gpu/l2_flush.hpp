#pragma once
// Evicts the L2 cache before a cold sample: a memset over twice the L2 size (nvbench uses 1x;
// 2x is a cheap margin, cuda_tech.md §4). The memset is not a kernel, so CUPTI never charges it.
#include <cuda.h>

#include <cstddef>

#include "exec/worker/device_buffer.hpp"

namespace ako::measure {

class L2Flush {
 public:
  explicit L2Flush(std::size_t l2_bytes);
  void enqueue(CUstream stream);   // asynchronous; the caller syncs

 private:
  exec::DeviceBuffer scratch_;
  unsigned int pattern_ = 0;       // changes every flush so no line can stay valid
};

}  // namespace ako::measure
