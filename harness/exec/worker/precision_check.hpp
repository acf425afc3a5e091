#pragma once
// The precision check of a compare case (tasks/README.md, "Precision against the oracle"): on
// every validation trial whose comparison with the reference passed, the task's fp64 oracle runs
// on fp64 copies of the trial's inputs on the full shape, and each floating compared unit of the
// reference's and of the solution's outputs is reduced against it on the GPU (sum of squared
// errors, max abs error, count: ako_oracle_error); verify/gpu/precision_rule.hpp judges the
// solution's with the reference's as the yardstick. Nothing is downloaded but the statistics.
//
// The oracle's copies of every storage (doubles for floating ones, integers as they are, views
// as offsets and strides into them, as in the reference check) are allocated once per case when
// the object is made, before the case's input sets (so the timed sets are chosen beside them),
// and freed by finish(), before timing.
#include <cuda.h>

#include <chrono>
#include <map>
#include <string>
#include <optional>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "exec/protocol/job.hpp"
#include "exec/worker/case_buffers.hpp"
#include "exec/worker/module_cache.hpp"
#include "exec/worker/validation.hpp"
#include "result/run_result.hpp"

namespace ako::exec {

class PrecisionCheck {
 public:
  // Loads job.oracle's kernel and allocates its copies. job.oracle must be set.
  PrecisionCheck(const CaseJob& job, ModuleCache& modules, CUstream stream);

  // Before the trial's first launch: the oracle's inputs from what both kernels are given in set
  // 0 (in storages; the pristine copy of inout storages), out views inside them poisoned (whole
  // out storages are poisoned once, when allocated).
  void take_inputs(const CaseJob& job, const CaseBuffers& buffers, int trial, const ValidationContext& ctx);
  // After both kernels ran on set 0 and matched within the tolerance: the oracle, then every
  // floating compared unit judged. A finding (incorrect) when the solution breaks the rule or
  // the oracle gave NaN/Inf where it must not.
  std::optional<Finding> judge_trial(const CaseJob& job, const CaseBuffers& buffers, int trial,
                                     const ValidationContext& ctx);

  // Frees the copies; the unit and trial closest to its limit (the failing one, if any), the
  // trials judged and the seconds the check took; nothing when no trial was judged.
  std::optional<PrecisionReport> finish();

 private:
  using Clock = std::chrono::steady_clock;
  // Adds the time since `since` to the step's share and returns now (the next step's start).
  Clock::time_point add_time(Clock::time_point since, const char* step) {
    const Clock::time_point now = Clock::now();
    const double s = std::chrono::duration<double>(now - since).count();
    seconds_ += s;
    parts_[step] += s;
    return now;
  }

  CUfunction oracle_ = nullptr;
  std::vector<cuda::DeviceBuffer> storages_;   // per present storage, in buffer order
  std::vector<CUdeviceptr> args_;              // per buffer: its address in the oracle's copies (0: absent)
  std::optional<PrecisionReport> closest_;
  int trials_judged_ = 0;
  double seconds_ = 0;
  std::map<std::string, double> parts_;   // seconds_ by step (PrecisionReport::check_parts_s)
};

}  // namespace ako::exec
