#include "exec/protocol/ancestor_watch.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace ako::exec {

namespace {

constexpr auto kProcPollInterval = std::chrono::milliseconds(100);

[[noreturn]] void leave(const char* who, int status, const ProcessIdentity& ancestor) {
  std::fprintf(stderr, "%s: the ako that started it (pid %d) is gone; exiting\n", who, static_cast<int>(ancestor.pid));
  std::fflush(stderr);
  ::_exit(status);
}

// Blocks until the process is gone. The pidfd is opened, then the identity checked again: the
// descriptor then holds that very process, whatever becomes of its PID.
void wait_until_gone(const ProcessIdentity& ancestor) {
#ifdef SYS_pidfd_open
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, ancestor.pid, 0));
  if (fd >= 0) {
    if (!still_running(ancestor)) return;
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    return;
  }
#endif
  while (still_running(ancestor)) std::this_thread::sleep_for(kProcPollInterval);
}

}  // namespace

std::string identity_text(const ProcessIdentity& p) { return std::to_string(p.pid) + ":" + std::to_string(p.start); }

std::optional<ProcessIdentity> parse_identity(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
  const std::string pid = text.substr(0, colon), start = text.substr(colon + 1);
  if (pid.find_first_not_of("0123456789") != std::string::npos ||
      start.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9 || start.size() > 19)
    return std::nullopt;
  ProcessIdentity p{static_cast<pid_t>(std::stol(pid)), std::stoull(start)};
  if (p.pid <= 0) return std::nullopt;
  return p;
}

std::optional<ProcessIdentity> identity_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 1));
  std::string state;
  rest >> state;   // field 3
  if (state == "Z" || state == "X") return std::nullopt;
  std::string field;
  for (int f = 4; f < 22 && rest >> field; ++f) {
  }
  uint64_t start = 0;
  if (!(rest >> start)) return std::nullopt;   // field 22
  return ProcessIdentity{pid, start};
}

bool still_running(const ProcessIdentity& p) {
  const std::optional<ProcessIdentity> now = identity_of(p.pid);
  return now && now->start == p.start;
}

void exit_with_ancestor(const char* who, int status, bool take_over) {
  const char* named = std::getenv(kAncestorEnv);
  if (named && *named)
    if (const std::optional<ProcessIdentity> ancestor = parse_identity(named)) {
      if (!still_running(*ancestor)) leave(who, status, *ancestor);
      const ProcessIdentity a = *ancestor;
      std::thread([who, status, a] {
        wait_until_gone(a);
        leave(who, status, a);
      }).detach();
    }
  if (!take_over) return;
  if (const std::optional<ProcessIdentity> self = identity_of(::getpid()))
    ::setenv(kAncestorEnv, identity_text(*self).c_str(), 1);
}

}  // namespace ako::exec
