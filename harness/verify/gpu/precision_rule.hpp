#pragma once
// The precision check's rule (tasks/README.md, "Precision against the oracle"). A kernel can be
// within the output's tolerance of the reference on one seed and outside it on the next (an
// RMSNorm that sums its squares in bf16); judged against the task's fp64 oracle with the
// reference kernel's own error as the yardstick, on every trial, on the full shape, such a
// kernel fails every time while one that only reorders an fp32 sum scores 1.00.
//
// Per compared floating unit and trial, with o the oracle's values and u the unit roundoff of
// the unit's dtype (2^-8 bf16, 2^-11 fp16, 2^-24 fp32):
//   yardstick_rms = max(reference's RMS error, u/4 * RMS(o))
//   yardstick_max = max(reference's max abs error, u/4 * max|o|)
//   the solution fails when its RMS error > factor.rms * yardstick_rms
//                        or its max abs error > factor.max * yardstick_max
//                        or it holds NaN/Inf where the oracle is finite.
// The floors only matter where the reference is (nearly) exact: rounding to the dtype costs a
// correctly rounded output at least about u/3.5 * RMS(o) (u/2 * max|o| at the largest value)
// on varied data, so they sit below what the reference scores there.
// Pure: the worker feeds it what ako_oracle_error counted on the GPU; the CPU tests cover it.
#include <cstdint>
#include <string>

#include "model/buffer.hpp"
#include "model/dtype.hpp"
#include "result/run_result.hpp"

namespace ako::verify {

// One kernel's output against the oracle over one compared unit (AkoOracleStats).
struct OracleError {
  uint64_t count = 0;              // elements where both are finite
  uint64_t got_nonfinite = 0;      // the kernel's NaN/Inf where the oracle is finite
  uint64_t oracle_nonfinite = 0;   // the oracle's own NaN/Inf
  double sum_sq_err = 0, max_abs_err = 0;
  double sum_sq_oracle = 0, max_abs_oracle = 0;

  double rms_error() const;        // sqrt(sum_sq_err / count); 0 when count is 0
  double rms_oracle() const;       // sqrt(sum_sq_oracle / count); 0 when count is 0
};

// 2^-8 (bf16), 2^-11 (fp16), 2^-24 (fp32); 0 for integers.
double unit_roundoff(DType t);

struct PrecisionVerdict {
  bool pass = true;
  PrecisionReport report;          // buffer, trial, both kernels' errors, floors, factors, ratios
};

// The rule above for one unit of trial `trial` (1-based). The floors come from the reference's
// pass over the oracle (the same oracle values the solution's pass saw). A ratio over a zero
// yardstick is 0 for a zero error and infinite otherwise.
PrecisionVerdict judge_precision(const OracleError& solution, const OracleError& reference, DType t,
                                 const model::ErrorFactor& factor, const std::string& buffer, int trial);

// How close a report came to its limit: max(rms_ratio / rms_factor, max_ratio / max_factor);
// above 1 it failed.
double limit_fraction(const PrecisionReport& r);

// Why a failing verdict failed, e.g. "less precise than the reference: in 'out' (validation trial
// 2/3) the solution's error against the fp64 oracle is RMS 0.0101 = 4.61x the reference kernel's
// 0.00219 (at most 1.25x allowed) and max abs 0.0625 = 4x the reference kernel's 0.015625 (at
// most 3x allowed)"; a measure whose yardstick is the floor names the floor and the reference's.
std::string precision_reason(const PrecisionReport& r, int trials, uint64_t solution_nonfinite = 0);

// The oracle itself produced NaN/Inf on the full shape: no kernel can be judged against it.
std::string oracle_nonfinite_reason(const std::string& buffer, uint64_t nonfinite, uint64_t elements, int trial,
                                    int trials);

}  // namespace ako::verify
