#pragma once
// The process's CUPTI activity subscription (CONCURRENT_KERNEL, MEMCPY and MEMSET records), as
// an RAII owner. Memcpy and memset records let the timer charge and report copies or sets that
// fall inside a sample (measure/stats/launch_audit.hpp).
//
// CUPTI allows one subscriber per process (ncu, nsys and cuda-gdb each count as one), so at
// most one CuptiActivity exists at a time. Records are delivered in buffers on a CUPTI thread
// (bufferCompleted), hence the lock around the collected kernel spans.
#include <cstdint>
#include <string>
#include <vector>

#include "measure/stats/launch_audit.hpp"

namespace ako::measure {

class CuptiActivity {
 public:
  // Registers the buffer callbacks, enables CONCURRENT_KERNEL, MEMCPY and MEMSET and checks that a forced flush
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

  // Moves out the records collected so far (incomplete records are already dropped).
  std::vector<ActivityRecord> take_records();

  // Records CUPTI reported as dropped since the subscription started.
  uint64_t dropped_records() const;
};

}  // namespace ako::measure
