#pragma once
// Owner of one device allocation (cuMemAlloc / cuMemFree), move-only.
#include <cuda.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda/fault.hpp"

namespace ako::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `what` names the allocation in a fault message ("cuMemAlloc(out, reference copy)").
  explicit DeviceBuffer(std::size_t bytes, const std::string& what = "buffer") : bytes_(bytes) {
    // cuMemAlloc rejects 0 bytes; an empty buffer still gets a valid, distinct address.
    check(cuMemAlloc(&ptr_, bytes ? bytes : 256), "cuMemAlloc(" + what + ")");
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, 0);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  CUdeviceptr get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  explicit operator bool() const { return ptr_ != 0; }

 private:
  // Errors are ignored: after a sticky fault every call fails and the worker is exiting anyway.
  void release() noexcept {
    if (ptr_) cuMemFree(ptr_);
    ptr_ = 0;
  }
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace ako::cuda
