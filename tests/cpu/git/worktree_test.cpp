// The worktree must be clean the way `git status --porcelain` sees it: staged, unstaged and
// untracked files refuse; ignored files do not.
#include "git/hygiene.hpp"
#include "repo_fixture.hpp"

namespace ako::git::testing {
namespace {

class Worktree : public RepoFixture {
 protected:
  HygieneReport check() { return check_hygiene({.root = work}); }
  const Finding& only(const HygieneReport& r, Problem p) {
    EXPECT_EQ(r.findings.size(), 1u) << "findings: " << r.findings.size();
    for (const auto& f : r.findings)
      if (f.problem == p) return f;
    throw std::runtime_error("no finding " + to_string(p));
  }
};

TEST_F(Worktree, FreshCloneIsClean) {
  const HygieneReport r = check();
  EXPECT_TRUE(r.clean()) << r.findings.front().message;
  EXPECT_EQ(r.facts.head_branch, "main");
  EXPECT_EQ(r.facts.head_oid, rev(work, "HEAD"));
  EXPECT_EQ(r.facts.start_point, rev(upstream, "main"));
  EXPECT_EQ(r.facts.repository, fs::path(work).string());
}

TEST_F(Worktree, UnstagedChangeToATrackedFileRefuses) {
  write_text(work / "a.txt", "changed\n");
  const HygieneReport r = check();
  const Finding& f = only(r, Problem::unstaged_changes);
  EXPECT_EQ(f.items, std::vector<std::string>{"a.txt"});
  EXPECT_TRUE(contains(f.fix, "git stash push --include-untracked")) << f.fix;
}

TEST_F(Worktree, StagedChangesRefuseAndAreNotCalledUntracked) {
  write_text(work / "b.txt", "new\n");
  git(work, "add b.txt");
  const HygieneReport r = check();
  const Finding& f = only(r, Problem::staged_changes);
  EXPECT_EQ(f.items, std::vector<std::string>{"b.txt"});
  EXPECT_FALSE(r.has(Problem::untracked_files));
}

TEST_F(Worktree, StagedAndUnstagedOfOneFileAreBothReported) {
  write_text(work / "a.txt", "staged\n");
  git(work, "add a.txt");
  write_text(work / "a.txt", "staged then edited\n");
  const HygieneReport r = check();
  EXPECT_TRUE(r.has(Problem::staged_changes));
  EXPECT_TRUE(r.has(Problem::unstaged_changes));
  EXPECT_EQ(r.findings.size(), 2u);
}

TEST_F(Worktree, UntrackedFilesRefuseAndAreListedOneByOne) {
  write_text(work / "notes.txt", "x\n");
  write_text(work / "newdir/deep/file.cuh", "x\n");
  const HygieneReport r = check();
  const Finding& f = only(r, Problem::untracked_files);
  EXPECT_EQ(f.items, (std::vector<std::string>{"newdir/deep/file.cuh", "notes.txt"}));
  EXPECT_TRUE(contains(f.message, "2 untracked files")) << f.message;
  EXPECT_TRUE(contains(f.fix, ".gitignore")) << f.fix;
}

TEST_F(Worktree, IgnoredFilesAloneStillPass) {
  write_text(work / "run.log", "x\n");
  write_text(work / "build/out.o", "x\n");
  const HygieneReport r = check();
  EXPECT_TRUE(r.clean()) << to_string(r.findings.front().problem) << ": " << r.findings.front().items.front();
}

TEST_F(Worktree, DeletedTrackedFileRefuses) {
  fs::remove(work / "a.txt");
  const HygieneReport r = check();
  const Finding& f = only(r, Problem::unstaged_changes);
  EXPECT_EQ(f.items, std::vector<std::string>{"a.txt"});
}

}  // namespace
}  // namespace ako::git::testing
