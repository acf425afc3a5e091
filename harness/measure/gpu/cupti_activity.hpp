#pragma once
// The process's CUPTI activity subscription (CONCURRENT_KERNEL records), as an RAII owner.
//
// CUPTI allows one subscriber per process (ncu, nsys and cuda-gdb each count as one), so at
// most one CuptiActivity exists at a time. Records are delivered in buffers on a CUPTI thread
// (bufferCompleted), hence the lock around the collected kernel spans.
#include <cstdint>
#include <string>
#include <vector>

namespace ako::measure {

// One kernel's execution on the GPU, in CUPTI's nanosecond clock (cuptiGetTimestamp's clock).
struct KernelSpan {
  uint64_t start_ns = 0, end_ns = 0;
};

class CuptiActivity {
 public:
  // Registers the buffer callbacks, enables CONCURRENT_KERNEL and checks that a forced flush
  // works (under ncu, enabling succeeds but flushing fails). Throws ako::Error with the CUPTI
  // error string when CUPTI cannot be used.
  CuptiActivity();
  ~CuptiActivity();
  CuptiActivity(const CuptiActivity&) = delete;
  CuptiActivity& operator=(const CuptiActivity&) = delete;

  // Current time in CUPTI's clock (the clock of the records).
  uint64_t now_ns() const;

  // Forces every completed record out of CUPTI's buffers; throws ako::Error on failure.
  void flush();

  // Moves out the kernel spans collected so far (incomplete records are already dropped).
  std::vector<KernelSpan> take_kernels();

  // Records CUPTI reported as dropped since the subscription started.
  uint64_t dropped_records() const;
};

}  // namespace ako::measure
