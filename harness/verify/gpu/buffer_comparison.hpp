#pragma once
// One output buffer of one trial compared with its expected values, whether the comparison
// ran on the GPU (support compare kernel) or on the host (reference vs CPU double).
#include <cstdint>
#include <string>

#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::verify {

// Same rules as ako_compare (compare_stats.h).
struct BufferComparison {
  uint64_t checked = 0;
  uint64_t mismatches = 0;        // !(|got - want| <= atol + rtol * |want|), or either non-finite
  uint64_t nonfinite = 0;         // got is NaN/Inf where want is finite
  uint64_t want_nonfinite = 0;    // the expected value itself is NaN/Inf
  double max_abs = 0;             // over elements where both are finite
  double max_rel = 0;             // |got - want| / max(|want|, atol, FLT_MIN), same elements
  int64_t worst_index = -1;       // largest error; a non-finite pair ranks above any finite
                                  // error; ties go to the lowest index
  double worst_got = 0, worst_want = 0;
  uint64_t got_varying = 0;       // elements whose bits differ from element 0's (constant-output check)
  uint64_t want_varying = 0;
};

// Running ErrorStats of a case over its trials and output buffers: maxima of the maxima, sums
// of the counts, and the worst element with its buffer's name.
class ErrorAccumulator {
 public:
  void add(const BufferComparison& c, const std::string& buffer);
  const ErrorStats& stats() const { return stats_; }

  // Non-finite expected values: the side that should be trusted is broken.
  uint64_t want_nonfinite() const { return want_nonfinite_; }
  const std::string& want_nonfinite_buffer() const { return want_nonfinite_buffer_; }

  // Empty when everything matched; otherwise why the candidate is incorrect, in words. A
  // constant output (exec::is_constant_output) fails even within the tolerance.
  // `got_name` / `want_name` say what was compared ("solution" / "reference kernel").
  std::string failure_reason(const exec::Tolerance& tol, const std::string& got_name,
                             const std::string& want_name) const;

 private:
  ErrorStats stats_;
  bool worst_is_nonfinite_ = false;
  uint64_t want_nonfinite_ = 0;
  std::string want_nonfinite_buffer_;
  // The first buffer whose candidate output was one finite value while the reference's varied.
  std::string constant_buffer_;
  uint64_t constant_checked_ = 0;
  double constant_value_ = 0;
};

}  // namespace ako::verify
