// git/write_guard: the lock files an ako killed while writing left are removed by the next
// guard (and said), older ones (another program's) are kept, and two ako writers never overlap.
#include "git/write_guard.hpp"

#include <sys/stat.h>
#include <sys/time.h>

#include "git/libgit2.hpp"
#include "repo_fixture.hpp"

namespace ako::git {
namespace {

using testing::contains;
using testing::write_text;
namespace fs = std::filesystem;

class WriteGuardTest : public testing::RepoFixture {
 protected:
  // Like a process killed while it held the guard: the marker stays (the guard's destructor never ran).
  void leave_marker() { write_text(work / ".git/ako-write.pending", "12345\n"); }
  // Backdates a file by `seconds`.
  static void age(const fs::path& p, int seconds) {
    struct timeval tv[2];
    gettimeofday(&tv[0], nullptr);
    tv[0].tv_sec -= seconds;
    tv[1] = tv[0];
    utimes(p.c_str(), tv);
  }
};

TEST_F(WriteGuardTest, LocksLeftByAKilledWriterAreRemovedAndSaid) {
  leave_marker();
  age(work / ".git/ako-write.pending", 5);
  write_text(work / ".git/refs/heads/opt/demo.lock", "");
  write_text(work / ".git/index.lock", "");
  const WriteGuard guard(work);
  ASSERT_EQ(guard.repaired().size(), 2u);
  for (const auto& line : guard.repaired()) EXPECT_TRUE(contains(line, "left by an ako killed while writing")) << line;
  EXPECT_FALSE(fs::exists(work / ".git/refs/heads/opt/demo.lock"));
  EXPECT_FALSE(fs::exists(work / ".git/index.lock"));
  git(work, "branch -q opt/demo");   // git can write the ref again
}

TEST_F(WriteGuardTest, OlderLocksAndLocksWithoutAMarkerAreNotAkos) {
  write_text(work / ".git/index.lock", "");
  {
    const WriteGuard guard(work);   // no marker: the last ako finished
    EXPECT_TRUE(guard.repaired().empty());
  }
  EXPECT_TRUE(fs::exists(work / ".git/index.lock"));
  age(work / ".git/index.lock", 60);
  leave_marker();   // made after the lock
  const WriteGuard guard(work);
  EXPECT_TRUE(guard.repaired().empty());
  EXPECT_TRUE(fs::exists(work / ".git/index.lock"));
}

TEST_F(WriteGuardTest, ASecondWriterIsRefusedAndTheMarkerGoesWithTheGuard) {
  {
    const WriteGuard first(work);
    EXPECT_TRUE(fs::exists(work / ".git/ako-write.pending"));
    try {
      const WriteGuard second(work);
      FAIL() << "two guards at once";
    } catch (const GitError& e) {
      EXPECT_TRUE(contains(e.what(), "another ako (pid " + std::to_string(getpid()) + ") is writing")) << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(work / ".git/ako-write.pending"));
}

}  // namespace
}  // namespace ako::git
