#pragma once
// Owner of one CUDA event (cuEventCreate / cuEventDestroy), move-only.
#include <cuda.h>

#include <utility>

#include "cuda/fault.hpp"

namespace ako::cuda {

class CudaEvent {
 public:
  CudaEvent() { check(cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate"); }
  CudaEvent(CudaEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&&) = delete;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() {
    if (event_) cuEventDestroy(event_);
  }

  void record(CUstream stream) { check(cuEventRecord(event_, stream), "cuEventRecord"); }
  CUevent get() const { return event_; }

  // Milliseconds between two recorded (and completed) events.
  static float elapsed_ms(const CudaEvent& start, const CudaEvent& stop) {
    float ms = 0;
    check(cuEventElapsedTime(&ms, start.event_, stop.event_), "cuEventElapsedTime");
    return ms;
  }

 private:
  CUevent event_ = nullptr;
};

}  // namespace ako::cuda
