// exec/protocol/ancestor_watch.hpp: a process told (by $AKO_ANCESTOR) which ako started it ends
// when that ako is gone, at once when it is gone already, and never because another process got
// the same PID. The ancestors here are processes forked from the test; the CLI side (a worker
// under a stand-in tool, a nested ako) is in tests/cpu/cli/kill_cli_test.cpp.
#include "exec/protocol/ancestor_watch.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

namespace ako::exec {
namespace {

using Clock = std::chrono::steady_clock;

pid_t sleeper() {
  const pid_t pid = fork();
  if (pid == 0) {
    ::pause();
    _exit(0);
  }
  return pid;
}

// A child that watches `ancestor` (named in its environment) and otherwise waits for 30 s.
pid_t watcher_of(const std::string& ancestor) {
  const pid_t pid = fork();
  if (pid == 0) {
    ::setenv(kAncestorEnv, ancestor.c_str(), 1);
    exit_with_ancestor("watcher", 77, false);
    std::this_thread::sleep_for(std::chrono::seconds(30));
    _exit(0);
  }
  return pid;
}

// The child's exit status within `limit`, or nullopt when it is still running then.
std::optional<int> exit_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  int status = 0;
  while (Clock::now() < until) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return std::nullopt;
}

void reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(AncestorWatch, IdentitiesRoundTripAndGarbageIsRefused) {
  const auto self = identity_of(getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_EQ(self->pid, getpid());
  EXPECT_GT(self->start, 0u);
  const auto back = parse_identity(identity_text(*self));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->pid, self->pid);
  EXPECT_EQ(back->start, self->start);
  EXPECT_TRUE(still_running(*self));
  for (const char* bad : {"", "12", ":5", "12:", "a:5", "12:5x", "-3:5", "0:5", "1:2:3"})
    EXPECT_FALSE(parse_identity(bad).has_value()) << bad;
}

TEST(AncestorWatch, TheWatcherEndsWithinMomentsOfItsAncestor) {
  for (int i = 0; i < 5; ++i) {
    const pid_t ancestor = sleeper();
    const auto id = identity_of(ancestor);
    ASSERT_TRUE(id.has_value());
    const pid_t watcher = watcher_of(identity_text(*id));
    EXPECT_EQ(exit_within(watcher, std::chrono::milliseconds(300)), std::nullopt) << "it left while its ancestor ran";
    ::kill(ancestor, SIGKILL);   // a zombie until reaped: ended all the same
    EXPECT_EQ(exit_within(watcher, std::chrono::milliseconds(1000)), std::optional<int>(77)) << "kill " << i;
    waitpid(ancestor, nullptr, 0);
    reap(watcher);
  }
}

TEST(AncestorWatch, AnAncestorAlreadyGoneOrAnotherProcessUnderItsPidEndsTheWatcherAtOnce) {
  const pid_t ancestor = sleeper();
  const auto id = identity_of(ancestor);
  ASSERT_TRUE(id.has_value());
  reap(ancestor);
  EXPECT_FALSE(still_running(*id));
  const pid_t gone = watcher_of(identity_text(*id));
  EXPECT_EQ(exit_within(gone, std::chrono::milliseconds(1000)), std::optional<int>(77));
  reap(gone);

  // This test process under a start time that is not its own: a reused PID.
  auto self = *identity_of(getpid());
  self.start += 1;
  EXPECT_FALSE(still_running(self));
  const pid_t reused = watcher_of(identity_text(self));
  EXPECT_EQ(exit_within(reused, std::chrono::milliseconds(1000)), std::optional<int>(77));
  reap(reused);
}

TEST(AncestorWatch, NoAncestorNamedNoWatchAndTakingOverNamesThisProcess) {
  const pid_t child = fork();
  if (child == 0) {
    ::unsetenv(kAncestorEnv);
    exit_with_ancestor("child", 77, true);
    const char* named = std::getenv(kAncestorEnv);
    const auto self = identity_of(getpid());
    _exit(named && self && identity_text(*self) == named ? 0 : 1);
  }
  EXPECT_EQ(exit_within(child, std::chrono::milliseconds(5000)), std::optional<int>(0));
}

}  // namespace
}  // namespace ako::exec
