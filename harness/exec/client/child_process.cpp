#include "exec/client/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <fmt/format.h>

#include "common/error.hpp"

extern char** environ;

namespace ako::exec {
namespace {

// A line longer than this without a newline is cut and handed out as is: the protocol's lines
// are small, so such output is noise and must not grow memory without bound.
constexpr std::size_t kMaxLine = 16u << 20;

std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  const auto key_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    bool overridden = false;
    for (const auto& o : overrides) overridden = overridden || key_of(o) == key_of(entry);
    if (!overridden) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// posix_spawn attributes and file actions, released on every path.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

ExitStatus decode(int wait_status) {
  ExitStatus s;
  if (WIFEXITED(wait_status)) {
    s.exited = true;
    s.code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    s.signal = WTERMSIG(wait_status);
  }
  return s;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (exited) return fmt::format("exit status {}", code);
  const char* abbrev = sigabbrev_np(signal);
  const char* text = strsignal(signal);
  return fmt::format("signal SIG{} ({})", abbrev ? abbrev : std::to_string(signal), text ? text : "unknown");
}

ChildProcess ChildProcess::spawn(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env_overrides,
                                 const std::filesystem::path& stderr_log) {
  if (argv.empty()) throw Error("ChildProcess::spawn: empty argv");
  int pipe_fds[2];
  // O_CLOEXEC: other processes this program starts concurrently must not inherit the pipe
  // (a stray write end would hide the worker's end of file).
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error(fmt::format("pipe2: {}", strerror(errno)));
  const int read_end = pipe_fds[0], write_end = pipe_fds[1];

  SpawnSetup setup;
  posix_spawnattr_setpgroup(&setup.attr, 0);   // a new group led by the child
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setsigmask(&setup.attr, &empty);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end, 1);
  posix_spawn_file_actions_addopen(&setup.actions, 2, stderr_log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);

  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(env_overrides);
  std::vector<char*> c_args = c_strings(args), c_env = c_strings(env);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0].c_str(), &setup.actions, &setup.attr, c_args.data(), c_env.data());
  close(write_end);
  if (rc != 0) {
    close(read_end);
    throw Error(fmt::format("cannot start {}: {} (stderr log {})", argv[0], strerror(rc), stderr_log.string()));
  }
  return ChildProcess(pid, read_end);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), stdout_fd_(other.stdout_fd_), reaped_(other.reaped_),
      stdout_closed_(other.stdout_closed_), status_(other.status_), buffer_(std::move(other.buffer_)) {
  other.pid_ = -1;
  other.stdout_fd_ = -1;
  other.reaped_ = true;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    kill_group();
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

bool ChildProcess::take_buffered_line(std::string& line) {
  const auto newline = buffer_.find('\n');
  if (newline == std::string::npos) {
    if (buffer_.size() < kMaxLine && !(stdout_closed_ && !buffer_.empty())) return false;
    line = std::move(buffer_);   // over-long, or the unterminated last line
    buffer_.clear();
    return true;
  }
  line = buffer_.substr(0, newline);
  buffer_.erase(0, newline + 1);
  return true;
}

ChildProcess::Read ChildProcess::read_line(std::string& line, Clock::time_point deadline) {
  for (;;) {
    if (take_buffered_line(line)) return Read::line;
    if (stdout_closed_) return Read::closed;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Read::timeout;
    pollfd pfd{stdout_fd_, POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("poll on the worker's stdout: {}", strerror(errno)));
    }
    if (ready == 0) continue;   // the deadline check above decides
    char chunk[65536];
    const ssize_t n = read(stdout_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0) {
      stdout_closed_ = true;
    } else if (errno != EINTR && errno != EAGAIN) {
      stdout_closed_ = true;    // an unreadable pipe ends the conversation like EOF
    }
  }
}

void ChildProcess::kill_group() {
  // Safe against pid reuse: until reaped, the leader exists (at least as a zombie), so its
  // group id cannot name an unrelated group.
  if (pid_ > 0 && !reaped_) ::kill(-pid_, SIGKILL);
}

ExitStatus ChildProcess::wait(Clock::time_point deadline) {
  if (reaped_ || pid_ <= 0) return status_;
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: see that it ended without reaping it, so the group can still be swept.
    const int rc = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid_) break;
    if (rc < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill_group();   // leftovers of a finished worker, or the worker itself past its deadline
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) {   // ECHILD: reaped elsewhere (SIGCHLD ignored); status unknown
      reaped_ = true;
      return status_;
    }
  }
  reaped_ = true;
  status_ = decode(status);
  return status_;
}

}  // namespace ako::exec
