#include "exec/client/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <fmt/format.h>

#include "common/error.hpp"
#include "exec/client/child_groups.hpp"

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

// The child's side of spawn(), between fork and exec: only async-signal-safe calls (the parent
// may have other threads, whose locks the child inherits held). Never returns; a failure is
// reported to the parent as an errno on `report_fd` (close-on-exec: exec success closes it).
[[noreturn]] void become_child(pid_t parent, const char* exe, char* const* argv, char* const* envp,
                               const char* stderr_log, int stdout_fd, int report_fd) {
  // Default dispositions (exec keeps ignored ones, and ako's own handlers must not run here).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
  setpgid(0, 0);   // a new group led by the child
  // Dies with ako, even of SIGKILL; inherited through exec. The parent may have died before
  // this call (then no signal would come): that is checked right after.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  int err = 0;
  // Close-on-exec everywhere but on 0, 1 and 2, so the program gets exactly those three.
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int log = open(stderr_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (devnull < 0 || log < 0) err = errno;
  if (!err && (dup2(devnull, 0) < 0 || dup2(stdout_fd, 1) < 0 || dup2(log, 2) < 0)) err = errno;
  for (int fd = 0; !err && fd <= 2; ++fd)
    if (fcntl(fd, F_SETFD, 0) < 0) err = errno;   // dup2 onto itself would keep the flag
  if (!err) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(exe, argv, envp);
    err = errno;
  }
  (void)!write(report_fd, &err, sizeof err);
  _exit(127);
}

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

  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    const int err = errno;
    close(read_end);
    close(write_end);
    throw Error(fmt::format("pipe2: {}", strerror(err)));
  }

  // Everything the child needs is made before fork: it may not allocate.
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(env_overrides);
  std::vector<char*> c_args = c_strings(args), c_env = c_strings(env);
  const std::string log = stderr_log.string();
  const pid_t parent = getpid();

  // Signals stay blocked across fork so that none runs a handler of ako's in the child.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = fork();
  if (pid == 0) become_child(parent, args[0].c_str(), c_args.data(), c_env.data(), log.c_str(), write_end, report[1]);
  const int fork_errno = errno;
  track_child_group(pid);   // before a pending SIGINT/SIGTERM can run the handler that kills it
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(write_end);
  close(report[1]);
  if (pid < 0) {
    close(report[0]);
    close(read_end);
    throw Error(fmt::format("cannot start {}: fork: {}", argv[0], strerror(fork_errno)));
  }

  // End of file: exec succeeded (the report pipe closed on exec); an int: why it did not.
  int child_errno = 0;
  ssize_t got;
  while ((got = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {}
  close(report[0]);
  if (got > 0) {
    untrack_child_group(pid);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    close(read_end);
    throw Error(fmt::format("cannot start {}: {} (stderr log {})", argv[0], strerror(child_errno), log));
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
    untrack_child_group(pid_);
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
  untrack_child_group(pid_);   // before the reap frees its id for reuse
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
