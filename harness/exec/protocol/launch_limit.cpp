#include "exec/protocol/launch_limit.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ako::exec {

double launch_limit_s(const LaunchLimit& limit, std::optional<double> reference_s) {
  if (!reference_s) return limit.max_s;
  return std::min(limit.max_s, std::max(limit.min_s, limit.factor * *reference_s));
}

std::string describe_launch_limit(const LaunchLimit& limit, std::optional<double> reference_s) {
  if (!reference_s) return fmt::format("{:g} s (the reference has not run yet)", limit.max_s);
  return fmt::format("max({:g} s, {:g} x the reference's {:.0f} us), at most {:g} s", limit.min_s, limit.factor,
                     *reference_s * 1e6, limit.max_s);
}

LaunchLimit launch_limit_for_case_timeout(double case_timeout_s) {
  LaunchLimit l;
  l.max_s = std::max(0.5, 0.9 * case_timeout_s);
  // The floor grows with a longer case timeout: whoever raises it (ako iterate's run under ncu,
  // whose 18 replay passes of one launch took over 2 s on the H200) means launches may be slow.
  l.min_s = std::min(std::max(l.min_s, case_timeout_s / 30.0), l.max_s);
  return l;
}

}  // namespace ako::exec
