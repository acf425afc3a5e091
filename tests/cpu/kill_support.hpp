#pragma once
// For the tests that kill ako at random points: start the real binary with a token in its
// environment (every process it starts inherits it: workers, compile children, git), stop it
// with a signal after a random delay, and find any process still carrying the token.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace ako::testsupport {

// How a started process ended.
struct Ended {
  bool signalled = false;   // killed by `signal` (else it exited with `code` first)
  int signal = 0;
  int code = -1;
  double after_s = 0;       // when the signal was sent (or when it exited on its own)
};

class KilledProcess {
 public:
  // argv[0] is a path. `env` entries ("KEY=VALUE") are added to this process's environment
  // (replacing the same keys); stdout and stderr go to `log`.
  KilledProcess(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                const std::vector<std::string>& env, const std::filesystem::path& log) {
    std::vector<std::string> args = argv, vars = env;
    const auto key = [](const std::string& v) { return v.substr(0, v.find('=')); };
    for (char** e = environ; *e; ++e) {
      bool replaced = false;
      for (const auto& v : env) replaced = replaced || key(v) == key(*e);
      if (!replaced) vars.emplace_back(*e);
    }
    std::vector<char*> c_args, c_vars;
    for (auto& a : args) c_args.push_back(a.data());
    for (auto& v : vars) c_vars.push_back(v.data());
    c_args.push_back(nullptr);
    c_vars.push_back(nullptr);
    const std::string dir = cwd.string(), out = log.string();
    start_ = std::chrono::steady_clock::now();
    pid_ = fork();
    if (pid_ == 0) {
      const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || chdir(dir.c_str()) != 0) _exit(126);
      dup2(fd, 1);
      dup2(fd, 2);
      execve(c_args[0], c_args.data(), c_vars.data());
      _exit(127);
    }
  }
  KilledProcess(const KilledProcess&) = delete;
  KilledProcess& operator=(const KilledProcess&) = delete;
  ~KilledProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  pid_t pid() const { return pid_; }

  // Sends `sig` `delay_ms` after the start unless it exited first; waits for it to end.
  Ended stop_after(int delay_ms, int sig) {
    Ended e;
    const auto at = start_ + std::chrono::milliseconds(delay_ms);
    int status = 0;
    for (;;) {
      const pid_t got = waitpid(pid_, &status, WNOHANG);
      if (got == pid_) {
        reaped_ = true;
        e.after_s = seconds_since_start();
        e.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);   // not ours: it crashed
        return e;
      }
      if (std::chrono::steady_clock::now() >= at) break;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    e.after_s = seconds_since_start();
    ::kill(pid_, sig);
    waitpid(pid_, &status, 0);
    reaped_ = true;
    if (WIFSIGNALED(status)) {
      e.signalled = true;
      e.signal = WTERMSIG(status);
    } else {
      e.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;   // it finished before the signal landed
    }
    return e;
  }

 private:
  double seconds_since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::chrono::steady_clock::time_point start_;
};

// "pid cmdline" of every live (not zombie) process whose environment holds `token`.
inline std::vector<std::string> processes_with(const std::string& token) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(getpid())) continue;
    std::ifstream env(e.path() / "environ", std::ios::binary);
    std::stringstream text;
    text << env.rdbuf();
    if (text.str().find(token) == std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') continue;
    std::ifstream cmd(e.path() / "cmdline", std::ios::binary);
    std::stringstream c;
    c << cmd.rdbuf();
    std::string cmdline = c.str();
    for (char& ch : cmdline)
      if (ch == '\0') ch = ' ';
    found.push_back(pid + " " + cmdline);
  }
  return found;
}

// Waits up to `limit_ms` for every process carrying `token` to be gone; returns those left.
inline std::vector<std::string> left_after(const std::string& token, int limit_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  for (;;) {
    std::vector<std::string> left = processes_with(token);
    if (left.empty() || std::chrono::steady_clock::now() >= until) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Waits up to `limit_ms` for a process carrying `token` whose command line holds `what`.
inline bool appeared(const std::string& token, const std::string& what, int limit_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  for (;;) {
    for (const std::string& p : processes_with(token))
      if (p.find(what) != std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

inline const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGKILL"; }

}  // namespace ako::testsupport
