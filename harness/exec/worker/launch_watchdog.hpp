#pragma once
// The worker's per-launch watchdog (limit: exec/protocol/launch_limit.hpp). The main thread
// arms it before a candidate's launch and disarms it once the launch has synchronised; a
// supervisor thread calls on_expiry when an armed deadline passes. on_expiry runs with the
// watchdog's lock held, so a launch that finishes at that moment cannot race it (disarm waits),
// and it is expected not to return: it reports the case and ends the process, which is the
// only way to stop a running kernel.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ako::exec {

class LaunchWatchdog {
 public:
  // what: the launch in words (stage and limit), limit_s: the limit that passed, role: whose
  // launch it was when the arming launch is synchronised alone ("reference", "solution", ...),
  // empty when unknown (timing queues launches of several kernels).
  using OnExpiry = std::function<void(const std::string& what, double limit_s, const std::string& role)>;

  explicit LaunchWatchdog(OnExpiry on_expiry);
  ~LaunchWatchdog();
  LaunchWatchdog(const LaunchWatchdog&) = delete;
  LaunchWatchdog& operator=(const LaunchWatchdog&) = delete;

  // (Re)starts the deadline: limit_s from now. Cheap enough to call before every timed launch.
  void arm(double limit_s, const std::string& what, const std::string& role = "");
  void disarm();

 private:
  using Clock = std::chrono::steady_clock;
  void supervise();

  OnExpiry on_expiry_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false, stop_ = false;
  Clock::time_point deadline_;
  double limit_s_ = 0;
  std::string what_, role_;
  std::thread thread_;
};

}  // namespace ako::exec
