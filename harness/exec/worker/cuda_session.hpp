#pragma once
// The worker's CUDA state: the device's primary context made current, and a non-blocking
// stream every launch goes to. The primary context is what CUPTI and the range profiler
// accepted on the H100 (cuda_tech.md §2).
#include <cuda.h>

namespace ako::exec {

class CudaSession {
 public:
  // cuInit, device `ordinal`, primary context retained and current, stream created.
  // Throws cuda::CudaFault (e.g. CUDA_ERROR_NO_DEVICE).
  explicit CudaSession(int ordinal = 0);
  ~CudaSession();
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  CUstream stream() const { return stream_; }
  int attribute(CUdevice_attribute a) const;

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

}  // namespace ako::exec
