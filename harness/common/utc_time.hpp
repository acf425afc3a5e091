#pragma once
// The UTC timestamps ako records (results, baselines, tuning records): ISO 8601, seconds.
#include <ctime>
#include <string>

namespace ako {

// gmtime_r, not gmtime: ako tune stamps records from more than one thread.
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace ako
