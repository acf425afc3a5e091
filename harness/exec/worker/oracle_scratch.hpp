#pragma once
// The device memory of the precision check's fp64 copies, kept from case to case: one
// allocation that grows to the largest case and is carved per case. Allocating and freeing the
// copies per case (5.8 GB for rmsnorm's hunyuan-720p) took 0.07 s of a 3.3 s warm rmsnorm run
// on the H200 (check_parts_s "allocate" + "free").
#include <cuda.h>

#include <cstddef>
#include <string>

#include "cuda/device_buffer.hpp"

namespace ako::exec {

class OracleScratch {
 public:
  // Addresses for `bytes` bytes, valid until the next call; the old contents are not kept.
  // Grows (frees first, then allocates) when the case needs more than it holds.
  CUdeviceptr take(std::size_t bytes, const std::string& what) {
    if (buffer_.bytes() < bytes) {
      buffer_ = cuda::DeviceBuffer();
      buffer_ = cuda::DeviceBuffer(bytes, what);
    }
    return buffer_.get();
  }

 private:
  cuda::DeviceBuffer buffer_;
};

// Offsets of consecutive regions in one allocation: each starts 256-byte aligned, as a
// cuMemAlloc of its own would.
inline std::size_t aligned_region_end(std::size_t begin, std::size_t bytes) {
  constexpr std::size_t kAlign = 256;
  return (begin + bytes + kAlign - 1) / kAlign * kAlign;
}

}  // namespace ako::exec
