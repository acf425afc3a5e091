#include "exec/worker/launch_watchdog.hpp"

namespace ako::exec {

LaunchWatchdog::LaunchWatchdog(OnExpiry on_expiry)
    : on_expiry_(std::move(on_expiry)), thread_([this] { supervise(); }) {}

LaunchWatchdog::~LaunchWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void LaunchWatchdog::arm(double limit_s, const std::string& what, const std::string& role) {
  bool wake;
  {
    std::lock_guard lock(mutex_);
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    wake = !armed_ || deadline < deadline_;
    armed_ = true;
    deadline_ = deadline;
    limit_s_ = limit_s;
    if (what != what_) what_ = what;
    if (role != role_) role_ = role;
  }
  // Only a fresh or earlier deadline needs the thread awake; a later one is found when the old one passes.
  if (wake) wake_.notify_all();
}

void LaunchWatchdog::disarm() {
  std::lock_guard lock(mutex_);
  armed_ = false;
}

void LaunchWatchdog::supervise() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      wake_.wait(lock);
      continue;
    }
    const Clock::time_point deadline = deadline_;
    wake_.wait_until(lock, deadline);
    if (stop_ || !armed_ || Clock::now() < deadline_) continue;   // disarmed or re-armed meanwhile
    on_expiry_(what_, limit_s_, role_);   // reports and exits; the lock stays held
    armed_ = false;                // only if on_expiry returned (tests)
  }
}

}  // namespace ako::exec
