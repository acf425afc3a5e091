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
  l.min_s = std::min(l.min_s, l.max_s);
  return l;
}

}  // namespace ako::exec
