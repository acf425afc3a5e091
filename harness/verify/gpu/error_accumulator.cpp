#include <algorithm>
#include <cmath>

#include "exec/protocol/verdict_reasons.hpp"
#include "verify/gpu/buffer_comparison.hpp"

namespace ako::verify {

bool ErrorAccumulator::Worst::take(const BufferComparison& c) {
  if (c.worst_index < 0) return false;
  const bool c_nonfinite = !std::isfinite(c.worst_got) || !std::isfinite(c.worst_want);
  const bool better = index < 0 || (c_nonfinite && !nonfinite) ||
                      (!c_nonfinite && !nonfinite && std::abs(c.worst_got - c.worst_want) > std::abs(got - want));
  if (!better) return false;
  index = c.worst_index;
  got = c.worst_got;
  want = c.worst_want;
  nonfinite = c_nonfinite;
  return true;
}

ErrorAccumulator::PerBuffer& ErrorAccumulator::buffer(const std::string& name, const exec::Tolerance& tol, bool exact) {
  auto it = std::find_if(buffers_.begin(), buffers_.end(), [&](const PerBuffer& b) { return b.name == name; });
  if (it != buffers_.end()) return *it;
  PerBuffer& b = buffers_.emplace_back();
  b.name = name;
  b.tol = tol;
  b.exact = exact;
  return b;
}

void ErrorAccumulator::add(const BufferComparison& c, const std::string& name, const exec::Tolerance& tol, bool exact) {
  stats_.checked += c.checked;
  stats_.mismatches += c.mismatches;
  stats_.nonfinite += c.nonfinite;
  stats_.max_abs = std::max(stats_.max_abs, c.max_abs);
  stats_.max_rel = std::max(stats_.max_rel, c.max_rel);
  PerBuffer& b = buffer(name, tol, exact);
  b.checked += c.checked;
  b.mismatches += c.mismatches;
  b.nonfinite += c.nonfinite;
  b.max_abs = std::max(b.max_abs, c.max_abs);
  b.max_rel = std::max(b.max_rel, c.max_rel);
  b.worst.take(c);
  if (c.want_nonfinite && !want_nonfinite_) want_nonfinite_buffer_ = name;
  want_nonfinite_ += c.want_nonfinite;
  // A constant NaN/Inf output (the untouched poison) keeps the NaN/Inf reason below.
  if (constant_buffer_.empty() && c.worst_index >= 0 && std::isfinite(c.worst_got) &&
      exec::is_constant_output(c.checked, c.got_varying, c.want_varying)) {
    constant_buffer_ = name;
    constant_checked_ = c.checked;
    constant_value_ = c.worst_got;   // every element holds it
  }
  if (!worst_.take(c)) return;
  stats_.worst_index = worst_.index;
  stats_.worst_got = worst_.got;
  stats_.worst_want = worst_.want;
  stats_.buffer = name;
}

std::string ErrorAccumulator::describe(const PerBuffer& b, const std::string& got_name, const std::string& want_name) {
  using exec::reason_number;
  std::string r = got_name + " differs from " + want_name + " in '" + b.name + "': ";
  r += std::to_string(b.mismatches) + " of " + std::to_string(b.checked) + " elements mismatch (";
  r += b.exact ? "compared exactly" : "tolerance atol " + reason_number(b.tol.atol) + " + rtol " + reason_number(b.tol.rtol) + " * |want|";
  if (b.nonfinite) r += "; " + std::to_string(b.nonfinite) + " of them NaN/Inf";
  r += ")";
  r += "; worst at index " + std::to_string(b.worst.index) + ": got " + reason_number(b.worst.got) + ", want " +
       reason_number(b.worst.want);
  r += "; max abs " + reason_number(b.max_abs) + ", max rel " + reason_number(b.max_rel);
  return r;
}

std::string ErrorAccumulator::failure_reason(const std::string& got_name, const std::string& want_name) const {
  if (want_nonfinite_)
    return want_name + " produced " + std::to_string(want_nonfinite_) + " non-finite value(s) in '" +
           want_nonfinite_buffer_ + "': the " + want_name + " (or its inputs) is broken, not the " +
           got_name;
  if (!constant_buffer_.empty()) return exec::constant_output_reason(constant_buffer_, constant_checked_, constant_value_);
  std::string r;
  for (const PerBuffer& b : buffers_) {
    if (b.mismatches == 0 && b.nonfinite == 0) continue;
    if (r.empty()) r = describe(b, got_name, want_name);
    else r += "; also in '" + b.name + "' (" + std::to_string(b.mismatches) + " of " + std::to_string(b.checked) + " elements)";
  }
  return r;
}

}  // namespace ako::verify
