// A child of ako never outlives it (exec/client/child_groups.hpp): SIGKILL of the parent kills
// the child through PR_SET_PDEATHSIG; SIGTERM (or SIGINT, SIGHUP) runs the handler, which kills
// the child's whole process group (what the child started too) before the parent dies of the
// signal, and says so. Each parent here is a process forked from the test, like an ako.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <functional>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "exec/client/child_groups.hpp"
#include "exec/client/child_process.hpp"

namespace ako::exec {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(AKO_BINARY_DIR) / "test-scratch" / "child_death" / std::to_string(getpid());
  fs::create_directories(dir);
  return dir / name;
}

// Alive and not a zombie.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (running(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// A parent process: runs `body` (which writes pids to `report`), then waits to be killed.
pid_t parent_process(const fs::path& log, const std::function<void(int report)>& body, int& report_read) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, 2);
    try {
      body(fds[1]);
    } catch (const std::exception& e) {
      fprintf(stderr, "parent: %s\n", e.what());
      _exit(3);
    }
    for (;;) pause();
  }
  close(fds[1]);
  report_read = fds[0];
  return pid;
}

void send_pid(int fd, pid_t pid) { (void)!write(fd, &pid, sizeof pid); }

pid_t receive_pid(int fd) {
  pid_t pid = -1;
  return read(fd, &pid, sizeof pid) == sizeof pid ? pid : -1;
}

TEST(ChildDeath, ASigkilledParentsChildDiesWithIt) {
  int report = -1;
  const pid_t parent = parent_process(scratch("sigkill.log"), [](int fd) {
    static std::optional<ChildProcess> child;   // stays alive in the parent until it is killed
    child.emplace(ChildProcess::spawn({"/bin/sleep", "30"}, {}, scratch("sleep.log")));
    send_pid(fd, child->pid());
  }, report);
  const pid_t child = receive_pid(report);
  ASSERT_GT(child, 0);
  ASSERT_TRUE(running(child));
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  EXPECT_TRUE(gone_within(child, std::chrono::seconds(2))) << "the child outlived its SIGKILLed parent";
  close(report);
}

TEST(ChildDeath, ASigtermedParentKillsItsChildsWholeGroupAndDiesOfTheSignal) {
  int report = -1;
  const fs::path log = scratch("sigterm.log");
  const pid_t parent = parent_process(log, [](int fd) {
    kill_children_on_termination_signals();
    static std::optional<ChildProcess> child;
    // The shell starts a grandchild, which has no PR_SET_PDEATHSIG of its own: only the group
    // kill reaches it.
    child.emplace(ChildProcess::spawn({"/bin/sh", "-c", "sleep 30 & echo $!; wait"}, {}, scratch("sh.log")));
    std::string line;
    if (child->read_line(line, ChildProcess::Clock::now() + std::chrono::seconds(10)) != ChildProcess::Read::line)
      throw std::runtime_error("the shell said nothing");
    send_pid(fd, child->pid());
    send_pid(fd, static_cast<pid_t>(std::stol(line)));
  }, report);
  const pid_t child = receive_pid(report), grandchild = receive_pid(report);
  ASSERT_GT(child, 0);
  ASSERT_GT(grandchild, 0);
  ASSERT_TRUE(running(grandchild));
  kill(parent, SIGTERM);
  int status = 0;
  waitpid(parent, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the parent must die of the signal, as without the handler";
  EXPECT_TRUE(gone_within(child, std::chrono::seconds(2)));
  EXPECT_TRUE(gone_within(grandchild, std::chrono::seconds(2))) << "the child's group was not killed";
  std::ifstream in(log);
  std::stringstream said;
  said << in.rdbuf();
  EXPECT_NE(said.str().find("ako: stopped by SIGTERM; killed 1 child process group"), std::string::npos) << said.str();
  close(report);
}

TEST(ChildDeath, AReapedChildIsNoLongerTracked) {
  const int before = tracked_child_groups();
  {
    ChildProcess child = ChildProcess::spawn({"/bin/true"}, {}, scratch("true.log"));
    EXPECT_EQ(tracked_child_groups(), before + 1);
    child.wait(ChildProcess::Clock::now() + std::chrono::seconds(5));
    EXPECT_EQ(tracked_child_groups(), before);
  }
  { ChildProcess unwaited = ChildProcess::spawn({"/bin/sleep", "30"}, {}, scratch("sleep2.log")); }   // killed and reaped
  EXPECT_EQ(tracked_child_groups(), before);
}

TEST(ChildDeath, AProgramThatCannotStartIsAnErrorAndLeavesNothingTracked) {
  const int before = tracked_child_groups();
  EXPECT_THROW(ChildProcess::spawn({"/nonexistent/ako-worker"}, {}, scratch("missing.log")), std::exception);
  EXPECT_EQ(tracked_child_groups(), before);
}

}  // namespace
}  // namespace ako::exec
