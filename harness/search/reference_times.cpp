#include "search/reference_times.hpp"

namespace ako::search {

bool ReferenceTimes::claim(const std::string& label) {
  if (times_.count(label)) return false;
  return claimed_.insert(label).second;
}

void ReferenceTimes::settle(const std::string& label, std::optional<double> time_us) {
  claimed_.erase(label);
  if (time_us && *time_us > 0) times_[label] = *time_us;
}

void ReferenceTimes::lower(const std::string& label, double time_us) {
  auto it = times_.find(label);
  if (it != times_.end() && time_us > 0 && time_us < it->second) it->second = time_us;
}

std::optional<double> ReferenceTimes::time_us(const std::string& label) const {
  auto it = times_.find(label);
  if (it == times_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ako::search
