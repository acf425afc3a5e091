#pragma once
// The reference is the same kernel for every variant, so a tune run times it once per case
// label ("flux1-single bf16 weight") instead of once per variant: the first job that runs a
// label claims it (CaseJob.time_reference = true for that one case); later jobs only
// validate against the reference and time the solution. If the claiming case never reached
// timing (the variant was wrong or crashed), the claim is released and the next job claims
// the label again. Speedups use the one recorded reference centre (IQM).
#include <map>
#include <optional>
#include <set>
#include <string>

namespace ako::search {

class ReferenceTimes {
 public:
  // True exactly once per label until it is released: this case times the reference.
  bool claim(const std::string& label);
  // The claiming case finished: its reference centre (IQM), or nullopt when it was not timed.
  void settle(const std::string& label, std::optional<double> time_us);
  std::optional<double> time_us(const std::string& label) const;
  // A later timing of the label's reference (a drift sentinel) that came out lower: the first
  // was taken in a slow window, so the lower one stands from now on.
  void lower(const std::string& label, double time_us);
  size_t timed() const { return times_.size(); }

 private:
  std::set<std::string> claimed_;
  std::map<std::string, double> times_;
};

}  // namespace ako::search
