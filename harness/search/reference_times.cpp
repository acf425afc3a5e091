#include "search/reference_times.hpp"

namespace ako::search {

bool ReferenceTimes::claim(const std::string& label) {
  if (medians_.count(label)) return false;
  return claimed_.insert(label).second;
}

void ReferenceTimes::settle(const std::string& label, std::optional<double> median_us) {
  claimed_.erase(label);
  if (median_us && *median_us > 0) medians_[label] = *median_us;
}

std::optional<double> ReferenceTimes::median_us(const std::string& label) const {
  auto it = medians_.find(label);
  if (it == medians_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ako::search
