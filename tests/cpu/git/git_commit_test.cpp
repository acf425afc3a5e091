// The libgit2 pieces iterate adds to harness/git/: hygiene that lets the iteration's own files
// be uncommitted, staging and committing, restoring paths from a commit, diffstat, history search.
#include "common/atomic_file.hpp"
#include "cpu/git/repo_fixture.hpp"
#include "git/commit.hpp"
#include "git/iteration_hygiene.hpp"

namespace ako::git::testing {
namespace {

class GitForIterate : public RepoFixture {
 protected:
  void SetUp() override {
    RepoFixture::SetUp();
    commit(author, "solution/demo/k.cuh", "line 1\nline 2\n", "workspace");
    git(author, "push -q origin main");
    git(work, "pull -q");
  }
  HygieneOptions options() {
    HygieneOptions h;
    h.root = work;
    return h;
  }
};

TEST_F(GitForIterate, TheIterationsOwnFilesAreNotDirtButOthersAre) {
  write_text(work / "solution/demo/k.cuh", "changed\n");
  write_text(work / "solution/demo/new.cuh", "new\n");
  write_text(work / "ITERATIONS.md", "# Iterations\n");
  EXPECT_TRUE(check_hygiene_allowing(options(), {"solution/demo", "ITERATIONS.md"}).clean());
  EXPECT_FALSE(check_hygiene(options()).clean());

  write_text(work / "solution/other/x.cuh", "x\n");  // another task's solution is not this iteration's
  write_text(work / "solution/demo-old.cuh", "x\n");  // a name sharing the prefix is not under it
  const HygieneReport r = check_hygiene_allowing(options(), {"solution/demo", "ITERATIONS.md"});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].problem, Problem::untracked_files);
  EXPECT_EQ(r.findings[0].items, (std::vector<std::string>{"solution/demo-old.cuh", "solution/other/x.cuh"}));
  EXPECT_TRUE(path_is_under("solution/demo/a/b.cuh", "solution/demo/"));
  EXPECT_FALSE(path_is_under("solution/demox", "solution/demo"));
}

TEST_F(GitForIterate, CommitStagesPathsAndBuffersOnTheCurrentBranch) {
  git(work, "checkout -q -b opt/demo");
  write_text(work / "solution/demo/k.cuh", "line 1\nline 2 changed\nline 3\n");
  write_text(work / "unrelated.txt", "not staged\n");
  CommitRequest req;
  req.worktree_paths = {"solution/demo"};
  req.buffered = {{"notes/log.md", "from memory\n"}, {"trace.log", "ignored by *.log\n"}};
  req.message = "[iter 1] test\n\ntask: demo\niter: 1\n";
  const CommitMade made = commit_on_head(work, req);
  EXPECT_EQ(made.oid, rev(work, "opt/demo"));
  EXPECT_EQ(made.skipped_ignored, std::vector<std::string>{"trace.log"});
  EXPECT_EQ(git(work, "show --name-only --format=%s HEAD"), "[iter 1] test\n\nnotes/log.md\nsolution/demo/k.cuh\n");
  EXPECT_EQ(git(work, "status --porcelain"), " D notes/log.md\n?? unrelated.txt\n")
      << "buffered files are committed before they exist in the worktree";

  const auto found = find_commit(work, [](const std::string& m) { return m.find("iter: 1\n") != std::string::npos; });
  EXPECT_EQ(found, made.oid);
  EXPECT_FALSE(find_commit(work, [](const std::string& m) { return m.find("iter: 9") != std::string::npos; }));
  EXPECT_EQ(head_commit(work)->oid, made.oid);
}

TEST_F(GitForIterate, DiffstatAndCheckoutOfPathsFromACommit) {
  git(work, "checkout -q -b opt/demo");
  const std::string v0 = rev(work, "HEAD");
  EXPECT_EQ(diffstat_against_head(work, "solution/demo"), "");
  write_text(work / "solution/demo/k.cuh", "line 1\nline 2 changed\n");
  write_text(work / "solution/demo/extra.cuh", "extra\n");
  const std::string stat = diffstat_against_head(work, "solution/demo");
  EXPECT_TRUE(contains(stat, "solution/demo/k.cuh")) << stat;
  EXPECT_TRUE(contains(stat, "solution/demo/extra.cuh")) << stat;
  EXPECT_TRUE(contains(stat, "2 files changed, 2 insertions(+), 1 deletion(-)")) << stat;
  EXPECT_EQ(changed_paths(work, "solution/demo"), (std::vector<std::string>{"solution/demo/extra.cuh", "solution/demo/k.cuh"}));

  git(work, "add -A solution");
  git(work, "commit -q -m v1");
  checkout_paths(work, v0, {"solution/demo"});
  EXPECT_EQ(read_file(work / "solution/demo/k.cuh"), "line 1\nline 2\n");
  EXPECT_FALSE(std::filesystem::exists(work / "solution/demo/extra.cuh")) << "a file the commit lacks is removed";
  EXPECT_EQ(git(work, "status --porcelain"), "D  solution/demo/extra.cuh\nM  solution/demo/k.cuh\n");
  checkout_paths(work, "", {"solution/demo"});
  EXPECT_EQ(git(work, "status --porcelain"), "");
}

}  // namespace
}  // namespace ako::git::testing
