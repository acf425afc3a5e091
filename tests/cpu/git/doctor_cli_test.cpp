// `ako doctor` as a user meets it: the facts, each problem with its paths or commits and fix,
// the HYGIENE: line, and the exit status (0 clean, 1 refused, 2 usage or environment).
#include "repo_fixture.hpp"

namespace ako::git::testing {
namespace {

class DoctorCli : public RepoFixture {
 protected:
  Shell ako(const std::string& args, const fs::path& cwd = {}) {
    const fs::path where = cwd.empty() ? dir : cwd;
    return shell("cd '" + where.string() + "' && '" AKO_BINARY_DIR "/ako' " + args);
  }
  std::string root() const { return "--root '" + work.string() + "'"; }
};

TEST_F(DoctorCli, CleanExitsZeroAndPrintsTheFacts) {
  const Shell r = ako("doctor " + root());
  EXPECT_EQ(r.status, 0) << r.out;
  for (const std::string& w : std::vector<std::string>{"upstream", "origin's URL; remote 'upstream' created now", "default branch  main (upstream/HEAD",
                              "start point     upstream/main at " + rev(upstream, "--short=7 main"), "HYGIENE: clean"})
    EXPECT_TRUE(contains(r.out, w)) << w << "\n" << r.out;
}

TEST_F(DoctorCli, RunsFromInsideTheRepositoryWithoutRoot) {
  fs::create_directories(work / "sub/deeper");  // empty folders are invisible to git: the tree stays clean
  const Shell r = ako("doctor", work / "sub/deeper");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "repository      " + work.string() + "\n")) << r.out;
}

TEST_F(DoctorCli, DirtyTreeExitsOneWithPathsAndFix) {
  write_text(work / "scratch.cuh", "x\n");
  write_text(work / "a.txt", "edited\n");
  const Shell r = ako("doctor " + root());
  EXPECT_EQ(r.status, 1) << r.out;
  for (const char* w : {"[untracked-files] 1 untracked file", "scratch.cuh", "[unstaged-changes]", "a.txt",
                        "fix: git stash push --include-untracked", "HYGIENE: refused (2 problems: unstaged-changes, untracked-files)"})
    EXPECT_TRUE(contains(r.out, w)) << w << "\n" << r.out;
}

TEST_F(DoctorCli, BehindIsRefusedThenFixedByFf) {
  upstream_commit("b.txt", "b\n", "upstream moved on");
  const Shell refused = ako("doctor " + root());
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_TRUE(contains(refused.out, "upstream moved on")) << refused.out;
  EXPECT_TRUE(contains(refused.out, "fix: git merge --ff-only upstream/main")) << refused.out;
  const Shell fixed = ako("doctor --ff " + root());
  EXPECT_EQ(fixed.status, 0) << fixed.out;
  EXPECT_TRUE(contains(fixed.out, "fast-forwarded  main from")) << fixed.out;
  EXPECT_EQ(rev(work, "HEAD"), rev(upstream, "main"));
}

TEST_F(DoctorCli, AheadListsTheCommitAndTheResetFix) {
  commit(work, "x.txt", "x\n", "my local tweak");
  const Shell r = ako("doctor --ff " + root());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, rev(work, "--short=7 HEAD") + " my local tweak")) << r.out;
  EXPECT_TRUE(contains(r.out, "git reset --hard upstream/main")) << r.out;
}

TEST_F(DoctorCli, OptionsReachTheCheck) {
  git(work, "remote remove origin");
  const Shell r = ako("doctor --upstream-url '" + upstream.string() + "' --default-branch main " + root());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "(--upstream-url; remote 'upstream' created now)")) << r.out;
  EXPECT_TRUE(contains(r.out, "main (configured: --default-branch)")) << r.out;
}

TEST_F(DoctorCli, EnvironmentErrorsExitTwo) {
  fs::create_directories(dir / "plain");
  const Shell not_repo = ako("doctor --root '" + (dir / "plain").string() + "'");
  EXPECT_EQ(not_repo.status, 2) << not_repo.out;
  EXPECT_TRUE(contains(not_repo.out, "not a git repository")) << not_repo.out;

  git(work, "remote add upstream '" + (dir / "missing.git").string() + "'");
  const Shell fetch = ako("doctor " + root());
  EXPECT_EQ(fetch.status, 2) << fetch.out;
  EXPECT_TRUE(contains(fetch.out, "fetch from upstream")) << fetch.out;

  const Shell branch = ako("doctor --default-branch nope --upstream-url x " + root());
  EXPECT_EQ(branch.status, 2) << branch.out;
}

TEST_F(DoctorCli, UsageErrorsExitTwoAndHelpDocumentsTheOptions) {
  EXPECT_EQ(ako("doctor --frobnicate").status, 2);
  const Shell help = ako("doctor --help");
  EXPECT_EQ(help.status, 0);
  for (const char* w : {"--root", "--upstream-url", "--default-branch", "--ff", "Exit 0 clean; 1 refused"})
    EXPECT_TRUE(contains(help.out, w)) << w << "\n" << help.out;
}

}  // namespace
}  // namespace ako::git::testing
