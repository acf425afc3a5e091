// exec/client/child_process: lines with deadlines, exit statuses, and killing a whole group.
#include "exec/client/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "common/error.hpp"

namespace ako::exec {
namespace {

namespace fs = std::filesystem;
using Clock = ChildProcess::Clock;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(AKO_BINARY_DIR) / "test-scratch" / "child_process";
  fs::create_directories(dir);
  fs::remove(dir / name);
  return dir / name;
}

ChildProcess shell(const std::string& script, const fs::path& log, std::vector<std::string> env = {}) {
  return ChildProcess::spawn({"/bin/sh", "-c", script}, env, log);
}

Clock::time_point in_seconds(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

TEST(ChildProcess, ReadsLinesIncludingAnUnterminatedLastOne) {
  auto child = shell("printf 'first\\nsecond\\n\\nlast'", scratch("lines.log"));
  std::string line;
  ASSERT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::line);
  EXPECT_EQ(line, "first");
  ASSERT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::line);
  EXPECT_EQ(line, "second");
  ASSERT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::line);
  EXPECT_EQ(line, "");
  ASSERT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::line);
  EXPECT_EQ(line, "last");
  EXPECT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::closed);
  const ExitStatus st = child.wait(in_seconds(5));
  EXPECT_TRUE(st.exited);
  EXPECT_EQ(st.code, 0);
  EXPECT_EQ(st.describe(), "exit status 0");
}

TEST(ChildProcess, StderrGoesToTheLogAndEnvironmentIsPassed) {
  const fs::path log = scratch("stderr.log");
  auto child = shell("echo \"to stderr $AKO_TEST_VALUE\" >&2; exit 7", log, {"AKO_TEST_VALUE=42"});
  std::string line;
  EXPECT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::closed);
  const ExitStatus st = child.wait(in_seconds(5));
  EXPECT_EQ(st.describe(), "exit status 7");
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "to stderr 42\n");
}

TEST(ChildProcess, DeadlinePassesWithoutOutput) {
  auto child = shell("sleep 5", scratch("silent.log"));
  std::string line;
  const auto t0 = Clock::now();
  EXPECT_EQ(child.read_line(line, in_seconds(0.2)), ChildProcess::Read::timeout);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(190));
  child.kill_group();
  const ExitStatus st = child.wait(in_seconds(5));
  EXPECT_FALSE(st.exited);
  EXPECT_EQ(st.signal, SIGKILL);
  EXPECT_EQ(st.describe(), "signal SIGKILL (Killed)");
}

bool process_gone(pid_t pid) {
  // Gone, or a zombie waiting for init: either way no longer running.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close_paren = text.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < text.size() && text[close_paren + 2] == 'Z';
}

TEST(ChildProcess, KillingTheGroupTakesGrandchildrenToo) {
  auto child = shell("sleep 30 & echo $!; wait", scratch("group.log"));
  std::string line;
  ASSERT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::line);
  const pid_t grandchild = std::stoi(line);
  ASSERT_FALSE(process_gone(grandchild));
  child.kill_group();
  child.wait(in_seconds(5));
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = process_gone(grandchild);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "grandchild " << grandchild << " survived";
}

TEST(ChildProcess, WaitKillsAProcessThatOutlivesItsDeadline) {
  auto child = shell("exec 1>&-; sleep 30", scratch("linger.log"));
  std::string line;
  EXPECT_EQ(child.read_line(line, in_seconds(5)), ChildProcess::Read::closed);
  const auto t0 = Clock::now();
  const ExitStatus st = child.wait(in_seconds(0.2));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(st.signal, SIGKILL);
}

TEST(ChildProcess, MissingProgramThrows) {
  EXPECT_THROW(ChildProcess::spawn({"/nonexistent/ako-worker"}, {}, scratch("missing.log")), Error);
}

TEST(ExitStatus, NamesSignals) {
  ExitStatus s;
  s.signal = SIGSEGV;
  EXPECT_EQ(s.describe(), "signal SIGSEGV (Segmentation fault)");
  s.signal = SIGABRT;
  EXPECT_EQ(s.describe(), "signal SIGABRT (Aborted)");
}

}  // namespace
}  // namespace ako::exec
