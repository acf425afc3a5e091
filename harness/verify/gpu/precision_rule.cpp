#include "verify/gpu/precision_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/protocol/verdict_reasons.hpp"

namespace ako::verify {

namespace {

constexpr double kFloorFraction = 0.25;   // the floors: u/4 of the oracle's RMS and max magnitude

// err / yardstick, where a zero yardstick makes any error infinitely too large.
double ratio(double err, double yardstick) {
  if (yardstick > 0) return err / yardstick;
  return err > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// "RMS 0.0101 = 4.61x the reference kernel's 0.00219 (at most 1.25x allowed)", or against the
// floor: "... = 4.61x the floor 0.00219 (u/4 x RMS |oracle|; the reference kernel's is 0) ...".
std::string measure(const char* name, const char* floor_of, double solution, double reference, double floor,
                    double ratio_value, double factor) {
  using exec::reason_number;
  std::string s = std::string(name) + " " + reason_number(solution) + " = " + reason_number(ratio_value) + "x ";
  if (floor > reference)
    s += "the floor " + reason_number(floor) + " (u/4 x " + floor_of + " |oracle|; the reference kernel's is " +
         reason_number(reference) + ")";
  else
    s += "the reference kernel's " + reason_number(reference);
  return s + " (at most " + reason_number(factor) + "x allowed)";
}

}  // namespace

double OracleError::rms_error() const { return count ? std::sqrt(sum_sq_err / static_cast<double>(count)) : 0.0; }
double OracleError::rms_oracle() const { return count ? std::sqrt(sum_sq_oracle / static_cast<double>(count)) : 0.0; }

double unit_roundoff(DType t) {
  switch (t) {
    case DType::bf16: return std::ldexp(1.0, -8);
    case DType::fp16: return std::ldexp(1.0, -11);
    case DType::fp32: return std::ldexp(1.0, -24);
    default: return 0.0;
  }
}

PrecisionVerdict judge_precision(const OracleError& solution, const OracleError& reference, DType t,
                                 const model::ErrorFactor& factor, const std::string& buffer, int trial) {
  PrecisionVerdict v;
  PrecisionReport& r = v.report;
  r.buffer = buffer;
  r.trial = trial;
  r.rms_factor = factor.rms;
  r.max_factor = factor.max;
  r.solution_rms = solution.rms_error();
  r.solution_max = solution.max_abs_err;
  r.reference_rms = reference.rms_error();
  r.reference_max = reference.max_abs_err;
  const double u = unit_roundoff(t);
  r.floor_rms = kFloorFraction * u * reference.rms_oracle();
  r.floor_max = kFloorFraction * u * reference.max_abs_oracle;
  r.rms_ratio = ratio(r.solution_rms, std::max(r.reference_rms, r.floor_rms));
  r.max_ratio = ratio(r.solution_max, std::max(r.reference_max, r.floor_max));
  if (solution.got_nonfinite) {
    r.rms_ratio = r.max_ratio = std::numeric_limits<double>::infinity();
  }
  v.pass = !(r.rms_ratio > factor.rms) && !(r.max_ratio > factor.max);
  return v;
}

double limit_fraction(const PrecisionReport& r) {
  return std::max(r.rms_factor > 0 ? r.rms_ratio / r.rms_factor : 0.0, r.max_factor > 0 ? r.max_ratio / r.max_factor : 0.0);
}

std::string precision_reason(const PrecisionReport& r, int trials, uint64_t solution_nonfinite) {
  std::string s = "less precise than the reference: in '" + r.buffer + "' (validation trial " + std::to_string(r.trial) +
                  "/" + std::to_string(trials) + ") the solution's error against the fp64 oracle is ";
  if (solution_nonfinite)
    return s + "unbounded: " + std::to_string(solution_nonfinite) + " NaN/Inf value(s) where the oracle is finite";
  s += measure("RMS", "RMS", r.solution_rms, r.reference_rms, r.floor_rms, r.rms_ratio, r.rms_factor);
  s += " and " + measure("max abs", "max", r.solution_max, r.reference_max, r.floor_max, r.max_ratio, r.max_factor);
  return s;
}

std::string oracle_nonfinite_reason(const std::string& buffer, uint64_t nonfinite, uint64_t elements, int trial,
                                    int trials) {
  return "fp64 oracle produced " + std::to_string(nonfinite) + " non-finite value(s) of " + std::to_string(elements) +
         " in '" + buffer + "' on this shape (validation trial " + std::to_string(trial) + "/" + std::to_string(trials) +
         "): the fp64 oracle (or its inputs) is broken, not the solution; the precision check cannot judge it";
}

}  // namespace ako::verify
