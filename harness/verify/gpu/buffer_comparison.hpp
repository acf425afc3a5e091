#pragma once
// One compared unit (a whole output buffer or a writable view) of one trial compared with its
// expected values, whether the comparison ran on the GPU (support compare kernel) or on the
// host (reference vs the fp64 oracle).
#include <cstdint>
#include <string>
#include <vector>

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

// Running ErrorStats of a case over its trials and compared units: maxima of the maxima, sums
// of the counts, and the worst element with its buffer's name; per buffer, the same with the
// buffer's own tolerance, so a reason names the buffer that failed and the rule it broke.
class ErrorAccumulator {
 public:
  // `tol`: the buffer's tolerance; `exact`: an integer buffer (compared with !=).
  void add(const BufferComparison& c, const std::string& buffer, const exec::Tolerance& tol, bool exact = false);
  const ErrorStats& stats() const { return stats_; }

  // Non-finite expected values: the side that should be trusted is broken.
  uint64_t want_nonfinite() const { return want_nonfinite_; }
  const std::string& want_nonfinite_buffer() const { return want_nonfinite_buffer_; }

  // Empty when everything matched; otherwise why the candidate is incorrect, in words: the
  // first buffer (in the order added) with a mismatch, its counts, tolerance and worst element,
  // then the other mismatching buffers. A constant output (exec::is_constant_output) fails even
  // within the tolerance. `got_name` / `want_name` say what was compared ("solution" /
  // "reference kernel").
  std::string failure_reason(const std::string& got_name, const std::string& want_name) const;

 private:
  // The worst element so far: a non-finite pair outranks any finite error, then the largest abs error.
  struct Worst {
    int64_t index = -1;
    double got = 0, want = 0;
    bool nonfinite = false;
    bool take(const BufferComparison& c);   // true when c's worst element replaced it
  };
  struct PerBuffer {
    std::string name;
    exec::Tolerance tol;
    bool exact = false;
    uint64_t checked = 0, mismatches = 0, nonfinite = 0;
    double max_abs = 0, max_rel = 0;
    Worst worst;
  };
  PerBuffer& buffer(const std::string& name, const exec::Tolerance& tol, bool exact);
  static std::string describe(const PerBuffer& b, const std::string& got_name, const std::string& want_name);

  ErrorStats stats_;
  Worst worst_;
  std::vector<PerBuffer> buffers_;   // in the order first added
  uint64_t want_nonfinite_ = 0;
  std::string want_nonfinite_buffer_;
  // The first buffer whose candidate output was one finite value while the reference's varied.
  std::string constant_buffer_;
  uint64_t constant_checked_ = 0;
  double constant_value_ = 0;
};

}  // namespace ako::verify
