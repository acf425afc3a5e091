#pragma once
// CUPTI enforcement: the GPU work seen in a timed sample must be exactly the declared launch.
// The CUPTI timer (measure/gpu/cupti_timer.cpp) collects the activity records whose start
// lies in a sample's window (kernels on any stream, memcpy, memset), charges all of them and
// audits them here; pure, so the CPU tests feed it recorded activity.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ako::measure {

// One CUPTI activity record (CUPTI's nanosecond clock).
struct ActivityRecord {
  enum class Kind { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  uint64_t start_ns = 0, end_ns = 0;
  std::array<int, 3> grid{0, 0, 0}, block{0, 0, 0};   // kernels only
  uint64_t bytes = 0;                                  // memcpy / memset only
  std::string name;                                    // kernel's (lowered) name
};

// What ako launches per sample.
struct DeclaredLaunch {
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int count = 1;
};

// Empty when `records` (one sample's) are exactly `declared`: `count` kernels, each with the
// declared grid and block, and no memcpy or memset. Otherwise every problem, in words.
std::string audit_sample(const std::vector<ActivityRecord>& records, const DeclaredLaunch& declared);

// Over all samples of one timing.
class LaunchAudit {
 public:
  void add(const std::vector<ActivityRecord>& sample_records, const DeclaredLaunch& declared);
  bool clean() const { return bad_ == 0; }
  // "" when clean, else "in 12 of 40 timed samples: 2 kernels where 1 is declared; ... (all of it charged)".
  std::string summary() const;

 private:
  int samples_ = 0, bad_ = 0;
  std::string first_;
};

}  // namespace ako::measure
