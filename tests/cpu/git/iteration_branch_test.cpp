// opt/<task> starts at the start point and is checked out; an existing one elsewhere is refused
// unless reused; on it, iteration commits are allowed but upstream progress is not silently ignored.
#include "git/hygiene.hpp"
#include "git/libgit2.hpp"
#include "repo_fixture.hpp"

namespace ako::git::testing {
namespace {

class IterationBranchTest : public RepoFixture {};

TEST_F(IterationBranchTest, CreatedAtTheStartPointAndCheckedOut) {
  const HygieneReport r = check_hygiene({.root = work});
  ASSERT_TRUE(r.clean());
  const IterationBranch b = create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  EXPECT_TRUE(b.created);
  EXPECT_EQ(b.name, "opt/rmsnorm");
  EXPECT_EQ(b.oid, r.facts.start_point);
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "opt/rmsnorm\n");
  EXPECT_EQ(rev(work, "opt/rmsnorm"), rev(upstream, "main"));

  const HygieneReport on_branch = check_hygiene({.root = work});
  EXPECT_TRUE(on_branch.clean());
  EXPECT_EQ(on_branch.facts.head_branch, "opt/rmsnorm");
  EXPECT_TRUE(on_branch.facts.iteration_commits.empty());
}

TEST_F(IterationBranchTest, LeavingAfterAFailureGoesBackAndRemovesTheNewBranch) {
  const HygieneReport r = check_hygiene({.root = work});
  const IterationBranch b = create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  write_text(work / "ITERATIONS.md", "the user's uncommitted Analysis\n");
  EXPECT_TRUE(leave_iteration_branch(work, "main", b));
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "main\n");
  EXPECT_EQ(git(work, "branch --list 'opt/*'"), "");
  EXPECT_EQ(git(work, "status --porcelain"), "?? ITERATIONS.md\n") << "uncommitted work stays as it was";
}

TEST_F(IterationBranchTest, LeavingKeepsABranchThatWasNotMadeOrHasACommit) {
  const HygieneReport r = check_hygiene({.root = work});
  IterationBranch b = create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  git(work, "switch -q main");
  const IterationBranch reused = create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  ASSERT_FALSE(reused.created);
  EXPECT_TRUE(leave_iteration_branch(work, "main", reused));
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "main\n");
  EXPECT_EQ(git(work, "branch --list 'opt/*'"), "  opt/rmsnorm\n") << "it existed before: it stays";

  git(work, "switch -q opt/rmsnorm");
  commit(work, "solution.cuh", "v1\n", "[iter 0] recorded");
  EXPECT_FALSE(leave_iteration_branch(work, "main", b)) << "a commit was made: the iteration stands";
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "opt/rmsnorm\n");
}

TEST_F(IterationBranchTest, IterationCommitsAreFactsNotProblems) {
  const HygieneReport r = check_hygiene({.root = work});
  create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  commit(work, "solution.cuh", "v1\n", "[iter 1] vectorise");
  const HygieneReport after = check_hygiene({.root = work});
  EXPECT_TRUE(after.clean());
  ASSERT_EQ(after.facts.iteration_commits.size(), 1u);
  EXPECT_TRUE(contains(after.facts.iteration_commits[0], "[iter 1] vectorise"));
}

TEST_F(IterationBranchTest, StaleIterationBranchIsRefusedWithTheMerge) {
  const HygieneReport r = check_hygiene({.root = work});
  create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  upstream_commit("b.txt", "b\n", "upstream fix");
  const HygieneReport after = check_hygiene({.root = work});
  ASSERT_EQ(after.findings.size(), 1u);
  const Finding& f = after.findings[0];
  EXPECT_EQ(f.problem, Problem::stale_iteration_branch);
  EXPECT_TRUE(contains(f.items.at(0), "upstream fix"));
  EXPECT_EQ(f.fix, "git merge --no-edit upstream/main  (append-only: the iteration history stays)");
}

TEST_F(IterationBranchTest, ExistingBranchElsewhereIsRefusedUnlessReused) {
  const HygieneReport r = check_hygiene({.root = work});
  create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  commit(work, "solution.cuh", "v1\n", "[iter 1] old work");
  const std::string old_tip = rev(work, "HEAD");
  git(work, "switch -q main");

  // Same start point as before: the branch has moved on, so it is refused with the fix.
  try {
    create_iteration_branch(work, "rmsnorm", r.facts.start_point);
    FAIL() << "expected a refusal";
  } catch (const Refusal& e) {
    EXPECT_EQ(e.finding.problem, Problem::branch_exists);
    EXPECT_TRUE(contains(e.finding.message, "opt/rmsnorm already exists")) << e.finding.message;
    EXPECT_TRUE(contains(e.finding.items.at(0), "[iter 1] old work"));
    EXPECT_TRUE(contains(e.finding.fix, "git branch -m opt/rmsnorm opt/rmsnorm-old")) << e.finding.fix;
  }
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "main\n") << "a refusal changes nothing";
  EXPECT_EQ(rev(work, "opt/rmsnorm"), old_tip);

  const IterationBranch reused = create_iteration_branch(work, "rmsnorm", r.facts.start_point, true);
  EXPECT_FALSE(reused.created);
  EXPECT_EQ(reused.oid, old_tip);
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "opt/rmsnorm\n");
}

TEST_F(IterationBranchTest, ExistingBranchAtTheStartPointIsSimplyReused) {
  const HygieneReport r = check_hygiene({.root = work});
  create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  git(work, "switch -q main");
  const IterationBranch again = create_iteration_branch(work, "rmsnorm", r.facts.start_point);
  EXPECT_FALSE(again.created);
  EXPECT_EQ(git(work, "symbolic-ref --short HEAD"), "opt/rmsnorm\n");
}

TEST_F(IterationBranchTest, InvalidTaskNameIsAnError) {
  const HygieneReport r = check_hygiene({.root = work});
  EXPECT_THROW(create_iteration_branch(work, "bad..name", r.facts.start_point), GitError);
  EXPECT_THROW(create_iteration_branch(work, "rmsnorm", "not-a-commit"), GitError);
}

}  // namespace
}  // namespace ako::git::testing
