#include "pipeline/drift_sentinel.hpp"

#include <fmt/format.h>

namespace ako::pipeline {

std::vector<size_t> choose_sentinels(const std::vector<std::optional<double>>& recorded_us, size_t segment) {
  std::vector<size_t> out;
  if (segment == 0) return out;
  for (size_t begin = 0; begin < recorded_us.size(); begin += segment) {
    std::optional<size_t> best;
    for (size_t i = begin; i < std::min(begin + segment, recorded_us.size()); ++i)
      if (recorded_us[i] && (!best || *recorded_us[i] < *recorded_us[*best])) best = i;
    if (best) out.push_back(*best);
  }
  return out;
}

std::vector<bool> drifted_cases(size_t n, const std::vector<SentinelReading>& readings, size_t segment,
                                double tolerance) {
  std::vector<bool> out(n, false);
  if (segment == 0) return out;
  for (const auto& r : readings) {
    if (!r.drifted(tolerance) || r.index >= n) continue;
    // The sentinel is somewhere in its segment (a probe at its end): two segments either side of
    // it hold its segment and both neighbours wherever it sits.
    const size_t begin = r.index >= 2 * segment ? r.index - 2 * segment + 1 : 0;
    const size_t end = std::min(n, r.index + 2 * segment);
    for (size_t i = begin; i < end; ++i) out[i] = true;
  }
  return out;
}

void SentinelTally::add(const SentinelReading& r, bool probe, const std::string& at) {
  if (!r.measured_us || r.recorded_us <= 0) {
    if (probe) ++probes_unread;
    return;
  }
  ++(probe ? probe_readings : readings);
  const double ratio = *r.measured_us / r.recorded_us;
  if (ratio > highest_ratio) {
    highest_ratio = ratio;
    highest_label = r.label;
    highest_at = at;
    highest_probe = probe;
  }
}

bool SentinelTally::merge(const SentinelTally& other) {
  readings += other.readings;
  probe_readings += other.probe_readings;
  probes_unread += other.probes_unread;
  if (other.highest_ratio <= highest_ratio) return false;
  highest_ratio = other.highest_ratio;
  highest_label = other.highest_label;
  highest_at = other.highest_at;
  highest_probe = other.highest_probe;
  return true;
}

std::string describe_worst_drift(const std::vector<SentinelReading>& readings, double tolerance) {
  const SentinelReading* worst = nullptr;
  for (const auto& r : readings)
    if (r.drifted(tolerance) && (!worst || *r.measured_us / r.recorded_us > *worst->measured_us / worst->recorded_us))
      worst = &r;
  if (!worst) return "";
  return fmt::format("the reference of '{}' timed {:.2f} us against {:.2f} us recorded ({:.2f}x)", worst->label,
                     *worst->measured_us, worst->recorded_us, *worst->measured_us / worst->recorded_us);
}

}  // namespace ako::pipeline
