#pragma once
// The per-launch watchdog's limit, scaled from the reference's time instead of one fixed minute.
//
// Before the reference has run once in a case, a launch may take up to max_s. After that a
// solution launch may take max(min_s, factor x the reference's launch time), at most max_s.
// The worker enforces it itself (exec/worker/launch_watchdog.hpp): it reports the case as failed
// with fault "timeout" and exits, and the parent starts a fresh worker for the other cases. The
// parent's silence watchdog (ClientOptions::case_timeout_s) stays as the backstop, so the ako
// side sets max_s a little below it.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ako::exec {

struct LaunchLimit {
  double min_s = 2.0;
  double factor = 1000.0;
  double max_s = 54.0;          // 90% of the default 60 s case timeout
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LaunchLimit, min_s, factor, max_s)

// Seconds one launch may run; reference_s is the reference's launch time when known.
double launch_limit_s(const LaunchLimit& limit, std::optional<double> reference_s);

// The limit in words, for a timeout reason: "max(2 s, 1000 x the reference's 21 us), at most 54 s"
// or "54 s (the reference has not run yet)".
std::string describe_launch_limit(const LaunchLimit& limit, std::optional<double> reference_s);

// The limit ako gives the worker for a parent case timeout: the worker must fire first, and its
// floor is a thirtieth of the case timeout (2 s at the default 60 s, 20 s at 600 s).
LaunchLimit launch_limit_for_case_timeout(double case_timeout_s);

}  // namespace ako::exec
