#pragma once
// Evicts the L2 cache before a cold sample, over a buffer twice the L2 size (nvbench uses 1x;
// 2x is a cheap margin, cuda_tech.md §4), outside the sample's window. With an evict kernel
// (the support module's ako_l2_evict) the buffer is read: the L2 is left holding clean lines,
// and the previous sample's dirty outputs are written back during the flush. Without one it is
// a memset, as nvbench does (ako's default, TimingOptions::l2_flush): that leaves the L2 full of
// dirty lines which the timed kernel's own misses write back inside its window, as a kernel in a
// model pays for its predecessors' outputs; the read flush lets the kernel's last outputs stay in
// L2 past its end instead (both measured on the H200: bench/RESULTS.md).
#include <cuda.h>

#include <cstddef>

#include "cuda/device_buffer.hpp"

namespace ako::measure {

class L2Flush {
 public:
  // `evict`: the read kernel (ako_l2_evict<unsigned long long>); null: the memset flush.
  L2Flush(std::size_t l2_bytes, CUfunction evict);
  void enqueue(CUstream stream);   // asynchronous; the caller syncs
  bool clean() const { return evict_ != nullptr; }

 private:
  cuda::DeviceBuffer scratch_;
  CUfunction evict_ = nullptr;
  unsigned int pattern_ = 0;       // memset flush: changes every flush so no line can stay valid
};

}  // namespace ako::measure
