#include "exec/client/child_groups.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace ako::exec {
namespace {

// More than ako ever runs at once (one worker, or a sanitizer, or ncu, per command).
constexpr int kSlots = 64;
std::atomic<pid_t> g_groups[kSlots];
std::atomic<pid_t> g_installer{0};   // the process whose children the slots name

static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

// write(2) of a C string; nothing here may allocate or lock.
void say(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "a signal";
}

void on_termination_signal(int sig) {
  const int saved_errno = errno;
  if (::getpid() == g_installer.load()) {
    int killed = 0;
    for (auto& slot : g_groups) {
      const pid_t pgid = slot.exchange(0);
      if (pgid > 0 && ::kill(-pgid, SIGKILL) == 0) ++killed;
    }
    say("\nako: stopped by ");
    say(signal_name(sig));
    if (killed > 0) {
      char digits[16];
      char* p = digits + sizeof digits;
      *--p = '\0';
      for (int k = killed; k > 0; k /= 10) *--p = char('0' + k % 10);
      say("; killed ");
      say(p);
      say(killed == 1 ? " child process group" : " child process groups");
    }
    say("\n");
  }
  errno = saved_errno;
  // SA_RESETHAND put the default action back and SA_NODEFER leaves the signal unblocked: this
  // ends the process as the signal would have (the shell sees 128+N).
  ::raise(sig);
}

}  // namespace

void track_child_group(pid_t pgid) {
  if (pgid <= 0) return;
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pgid)) return;
  }
}

void untrack_child_group(pid_t pgid) {
  if (pgid <= 0) return;
  for (auto& slot : g_groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

int tracked_child_groups() {
  int n = 0;
  for (const auto& slot : g_groups) n += slot.load() > 0;
  return n;
}

void kill_children_on_termination_signals() {
  g_installer.store(::getpid());
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;   // nohup, background jobs
    struct sigaction sa {};
    sa.sa_handler = on_termination_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace ako::exec
