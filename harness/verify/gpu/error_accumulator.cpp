#include <algorithm>
#include <cmath>

#include "exec/protocol/verdict_reasons.hpp"
#include "verify/gpu/buffer_comparison.hpp"

namespace ako::verify {

void ErrorAccumulator::add(const BufferComparison& c, const std::string& buffer) {
  stats_.checked += c.checked;
  stats_.mismatches += c.mismatches;
  stats_.nonfinite += c.nonfinite;
  stats_.max_abs = std::max(stats_.max_abs, c.max_abs);
  stats_.max_rel = std::max(stats_.max_rel, c.max_rel);
  if (c.want_nonfinite && !want_nonfinite_) want_nonfinite_buffer_ = buffer;
  want_nonfinite_ += c.want_nonfinite;
  // A constant NaN/Inf output (the untouched poison) keeps the NaN/Inf reason below.
  if (constant_buffer_.empty() && c.worst_index >= 0 && std::isfinite(c.worst_got) &&
      exec::is_constant_output(c.checked, c.got_varying, c.want_varying)) {
    constant_buffer_ = buffer;
    constant_checked_ = c.checked;
    constant_value_ = c.worst_got;   // every element holds it
  }

  // A non-finite element outranks any finite error; among finite ones the largest abs error wins.
  if (c.worst_index < 0) return;
  const bool nonfinite = !std::isfinite(c.worst_got) || !std::isfinite(c.worst_want);
  const bool better = stats_.worst_index < 0 ||
                      (nonfinite && !worst_is_nonfinite_) ||
                      (!nonfinite && !worst_is_nonfinite_ &&
                       std::abs(c.worst_got - c.worst_want) > std::abs(stats_.worst_got - stats_.worst_want));
  if (!better) return;
  stats_.worst_index = c.worst_index;
  stats_.worst_got = c.worst_got;
  stats_.worst_want = c.worst_want;
  stats_.buffer = buffer;
  worst_is_nonfinite_ = nonfinite;
}

std::string ErrorAccumulator::failure_reason(const exec::Tolerance& tol, const std::string& got_name,
                                             const std::string& want_name) const {
  if (want_nonfinite_)
    return want_name + " produced " + std::to_string(want_nonfinite_) + " non-finite value(s) in '" +
           want_nonfinite_buffer_ + "': the " + want_name + " (or its inputs) is broken, not the " +
           got_name;
  if (!constant_buffer_.empty()) return exec::constant_output_reason(constant_buffer_, constant_checked_, constant_value_);
  if (stats_.mismatches == 0 && stats_.nonfinite == 0) return {};
  std::string r = got_name + " differs from " + want_name + " in '" + stats_.buffer + "': ";
  r += std::to_string(stats_.mismatches) + " of " + std::to_string(stats_.checked) +
       " elements mismatch (tolerance atol " + exec::reason_number(tol.atol) + " + rtol " + exec::reason_number(tol.rtol) + " * |want|";
  if (stats_.nonfinite) r += "; " + std::to_string(stats_.nonfinite) + " of them NaN/Inf";
  r += ")";
  r += "; worst at index " + std::to_string(stats_.worst_index) + ": got " + exec::reason_number(stats_.worst_got) +
       ", want " + exec::reason_number(stats_.worst_want);
  r += "; max abs " + exec::reason_number(stats_.max_abs) + ", max rel " + exec::reason_number(stats_.max_rel);
  return r;
}

}  // namespace ako::verify
