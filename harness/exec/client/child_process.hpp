#pragma once
// One child process, owned: started in a process group of its own (so a hung worker and
// anything it started die together with one kill), stdin from /dev/null, stdout on a pipe
// that the owner reads line by line with a deadline, stderr appended to a log file.
// The destructor kills the group and reaps, so no path leaves a zombie or a stray worker.
// When ako itself dies: the child has PR_SET_PDEATHSIG = SIGKILL (so even a SIGKILLed ako
// leaves no child running), and its group is tracked for ako's SIGINT/SIGTERM/SIGHUP handler
// (exec/client/child_groups.hpp), which kills the whole group. PR_SET_PDEATHSIG fires when the
// *thread* that spawned the child ends: spawn from a thread that outlives the child (ako
// spawns from its main thread).
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ako::exec {

// How a process ended.
struct ExitStatus {
  bool exited = false;   // returned from main / called exit
  int code = 0;          // exit status when exited
  int signal = 0;        // terminating signal when !exited
  // "exit status 3" or "signal SIGSEGV (Segmentation fault)".
  std::string describe() const;
};

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Read { line, timeout, closed };

  // Starts argv[0] (a path, not searched in PATH) with this process's environment plus
  // env_overrides ("KEY=VALUE", replacing an inherited KEY). Throws ako::Error when the
  // program cannot be started (missing, not executable, log file not writable).
  static ChildProcess spawn(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env_overrides,
                            const std::filesystem::path& stderr_log);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();

  // The next stdout line (without its newline). closed: stdout reached end of file (a final
  // unterminated line is returned as a line first); timeout: nothing complete by `deadline`.
  Read read_line(std::string& line, Clock::time_point deadline);

  // SIGKILL to every process in the group (no-op once reaped).
  void kill_group();

  // Waits for the process to end; kills the group if it has not ended by `deadline`. Any
  // process the child left behind in its group is killed too. Idempotent.
  ExitStatus wait(Clock::time_point deadline);

  pid_t pid() const { return pid_; }

 private:
  ChildProcess(pid_t pid, int stdout_fd) : pid_(pid), stdout_fd_(stdout_fd) {}
  bool take_buffered_line(std::string& line);

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  bool reaped_ = false;
  bool stdout_closed_ = false;
  ExitStatus status_;
  std::string buffer_;    // bytes read from stdout, not yet returned as lines
};

}  // namespace ako::exec
