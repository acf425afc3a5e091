// common/scratch_folder.hpp: a scratch folder is marked while its process runs; the sweep
// removes those a killed process left, never a live process's, never an unmarked one (kept on
// purpose or made by an older ako), never another name. The processes here are forked from the
// test; `ako run` killed and run again is in tests/cpu/cli/kill_cli_test.cpp.
#include "common/scratch_folder.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <fmt/format.h>

namespace ako {
namespace {

namespace fs = std::filesystem;

class ScratchFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-scratch-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    tmp_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }

  // A process that marks tmp_/ako-<command>-<its pid>, writes a file there and waits; its pid.
  pid_t owner(const std::string& command) {
    int ready[2];
    EXPECT_EQ(pipe(ready), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      ScratchFolder f(tmp_ / fmt::format("ako-{}-{}", command, getpid()));
      std::ofstream(f.path() / "job-1.json") << "{}";
      (void)!write(ready[1], "x", 1);
      ::pause();
      _exit(0);
    }
    char c;
    EXPECT_EQ(read(ready[0], &c, 1), 1);
    close(ready[0]);
    close(ready[1]);
    return pid;
  }

  fs::path folder(const std::string& command, pid_t pid) const { return tmp_ / fmt::format("ako-{}-{}", command, pid); }

  fs::path tmp_;
};

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST_F(ScratchFolderTest, AKilledOwnersFolderIsSweptALiveOnesIsKept) {
  const pid_t live = owner("run");
  std::vector<fs::path> killed;
  for (const char* command : {"run", "tune", "iterate", "sanitize"}) {
    const pid_t p = owner(command);
    kill_and_reap(p);
    killed.push_back(folder(command, p));
    ASSERT_TRUE(fs::exists(killed.back() / "job-1.json"));
  }
  std::vector<fs::path> removed = sweep_orphaned_scratch(tmp_);
  std::sort(removed.begin(), removed.end());
  std::sort(killed.begin(), killed.end());
  EXPECT_EQ(removed, killed);
  for (const fs::path& d : killed) EXPECT_FALSE(fs::exists(d)) << d;
  EXPECT_TRUE(fs::exists(folder("run", live) / "job-1.json")) << "a live process's folder is never swept";
  EXPECT_TRUE(sweep_orphaned_scratch(tmp_).empty());
  kill_and_reap(live);
  EXPECT_EQ(sweep_orphaned_scratch(tmp_), std::vector<fs::path>{folder("run", live)});
}

TEST_F(ScratchFolderTest, AFolderItsOwnerFinishedWithIsUnmarkedAndKeptOrGoneWhenEmpty) {
  const fs::path kept = tmp_ / "ako-sanitize-1";
  {
    ScratchFolder f(kept);
    EXPECT_TRUE(fs::exists(kept / kScratchMark));
    std::ofstream(kept / "case-0-memcheck.txt") << "report";
  }
  EXPECT_FALSE(fs::exists(kept / kScratchMark));
  EXPECT_TRUE(fs::exists(kept / "case-0-memcheck.txt")) << "its contents are the caller's to remove or keep";
  const fs::path empty = tmp_ / "ako-run-2";
  { ScratchFolder f(empty); }
  EXPECT_FALSE(fs::exists(empty)) << "an unused folder leaves nothing";
  EXPECT_TRUE(sweep_orphaned_scratch(tmp_).empty()) << "unmarked: kept on purpose";
  EXPECT_TRUE(fs::exists(kept / "case-0-memcheck.txt"));
}

TEST_F(ScratchFolderTest, OnlyScratchNamesAreSwept) {
  for (const char* name : {"ako-run-12", "ako-tune-3", "ako-iterate-44", "ako-sanitize-5", "ako-run-12.swept",
                           "ako-tune-3-1", "ako-tune-3-0.swept"})
    EXPECT_TRUE(is_scratch_name(name)) << name;
  for (const char* name : {"ako-cache-1000", "ako-jit-aB3xYz", "ako-run-", "ako-run-12x", "xako-run-1", "ako-gpu-tests",
                           "ako-kill-test-abc123", "ako-report-12", "ako-tune-3-", "ako-tune-3-1-2"})
    EXPECT_FALSE(is_scratch_name(name)) << name;
  // Another name with an unheld mark inside: not a scratch folder, never touched.
  fs::create_directories(tmp_ / "ako-cache-1000");
  std::ofstream(tmp_ / "ako-cache-1000" / kScratchMark) << "";
  EXPECT_TRUE(sweep_orphaned_scratch(tmp_).empty());
  EXPECT_TRUE(fs::exists(tmp_ / "ako-cache-1000"));
}

TEST_F(ScratchFolderTest, AProcessReusingAKilledOwnersPidTakesItsFolderOver) {
  // What a killed process of this test's PID would have left: a folder with an unheld mark.
  const fs::path mine = folder("run", getpid());
  fs::create_directories(mine);
  std::ofstream(mine / kScratchMark) << "";
  std::ofstream(mine / "worker-1.stderr.log") << "old";
  ScratchFolder f(mine);
  EXPECT_TRUE(sweep_orphaned_scratch(tmp_).empty()) << "held again, by this process";
  EXPECT_TRUE(fs::exists(mine / kScratchMark));
}

}  // namespace
}  // namespace ako
