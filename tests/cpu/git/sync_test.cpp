// HEAD against the start point upstream/<default>: behind is fast-forwardable, ahead and
// diverged are refused with the commits listed and the exact fix; detached HEAD and foreign
// branches are named.
#include "git/hygiene.hpp"
#include "repo_fixture.hpp"

namespace ako::git::testing {
namespace {

class Sync : public RepoFixture {
 protected:
  HygieneReport check(bool ff = false) { return check_hygiene({.root = work, .fast_forward = ff}); }
  static const Finding& find(const HygieneReport& r, Problem p) {
    for (const auto& f : r.findings)
      if (f.problem == p) return f;
    throw std::runtime_error("no finding " + to_string(p));
  }
  static bool any_item(const Finding& f, const std::string& what) {
    for (const auto& i : f.items)
      if (contains(i, what)) return true;
    return false;
  }
};

TEST_F(Sync, LocalCommitsAreRefusedAndListed) {
  commit(work, "local.txt", "mine\n", "local experiment");
  const HygieneReport r = check();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = find(r, Problem::ahead);
  ASSERT_EQ(f.items.size(), 1u);
  EXPECT_TRUE(contains(f.items[0], "local experiment")) << f.items[0];
  EXPECT_TRUE(contains(f.items[0], rev(work, "--short=7 HEAD"))) << f.items[0];
  EXPECT_TRUE(contains(f.fix, "git reset --hard upstream/main")) << f.fix;
  EXPECT_TRUE(contains(f.fix, "git branch ako-saved/main-")) << f.fix;
  EXPECT_FALSE(check(true).clean()) << "--ff must not touch local commits";
  EXPECT_TRUE(contains(git(work, "log --oneline -1"), "local experiment"));
}

TEST_F(Sync, BehindOffersAFastForwardAndFfDoesIt) {
  upstream_commit("a.txt", "two\n", "upstream moved on");
  const std::string old_head = rev(work, "HEAD");
  const HygieneReport r = check();
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = find(r, Problem::behind);
  EXPECT_TRUE(any_item(f, "upstream moved on"));
  EXPECT_EQ(f.fix, "git merge --ff-only upstream/main  (or: ako doctor --ff)");
  EXPECT_EQ(rev(work, "HEAD"), old_head) << "without --ff nothing moves";

  const HygieneReport ff = check(true);
  EXPECT_TRUE(ff.clean());
  ASSERT_TRUE(ff.facts.fast_forwarded_from.has_value());
  EXPECT_EQ(*ff.facts.fast_forwarded_from, old_head);
  EXPECT_EQ(rev(work, "HEAD"), rev(upstream, "main"));
  EXPECT_EQ(ff.facts.head_oid, rev(upstream, "main"));
  std::ifstream in(work / "a.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "two\n") << "the worktree follows the branch";
  EXPECT_EQ(git(work, "status --porcelain"), "");
  EXPECT_TRUE(check().clean());
}

TEST_F(Sync, BehindWithADirtyTreeIsNotFastForwarded) {
  upstream_commit("b.txt", "b\n", "upstream moved on");
  write_text(work / "a.txt", "local edit\n");
  const HygieneReport r = check(true);
  EXPECT_TRUE(r.has(Problem::unstaged_changes));
  EXPECT_TRUE(contains(find(r, Problem::behind).message, "not fast-forwarded")) << find(r, Problem::behind).message;
  EXPECT_FALSE(r.facts.fast_forwarded_from.has_value());
  EXPECT_NE(rev(work, "HEAD"), rev(upstream, "main"));
}

TEST_F(Sync, RewrittenUpstreamHistoryIsDiverged) {
  upstream_commit("b.txt", "b\n", "original second commit");
  git(work, "pull -q --ff-only");
  git(author, "commit -q --amend -m 'rewritten second commit'");
  git(author, "push -q -f origin main");
  const HygieneReport r = check(true);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = find(r, Problem::diverged);
  EXPECT_TRUE(any_item(f, "local only:    " + rev(work, "--short=7 HEAD") + " original second commit"));
  EXPECT_TRUE(any_item(f, "upstream only: " + rev(author, "--short=7 HEAD") + " rewritten second commit"));
  EXPECT_TRUE(contains(f.fix, "git reset --hard upstream/main")) << f.fix;
  EXPECT_TRUE(contains(git(work, "log --oneline -1"), "original second commit")) << "--ff never rewrites";
}

TEST_F(Sync, LocalCommitsPlusUpstreamProgressIsDiverged) {
  commit(work, "mine.txt", "m\n", "mine");
  upstream_commit("theirs.txt", "t\n", "theirs");
  const HygieneReport r = check();
  const Finding& f = find(r, Problem::diverged);
  EXPECT_TRUE(contains(f.message, "1 local, 1 upstream")) << f.message;
}

TEST_F(Sync, DetachedHeadIsNamedWithTheFix) {
  upstream_commit("b.txt", "b\n", "second");
  git(work, "pull -q --ff-only");
  git(work, "checkout -q --detach HEAD~1");
  const HygieneReport r = check(true);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = find(r, Problem::detached_head);
  EXPECT_TRUE(contains(f.message, "detached")) << f.message;
  EXPECT_TRUE(any_item(f, "first commit"));
  EXPECT_EQ(f.fix, "git switch main");
  EXPECT_TRUE(r.facts.head_branch.empty());
}

TEST_F(Sync, AnotherBranchIsRefusedWithTheSwitch) {
  git(work, "switch -q -c feature");
  const HygieneReport r = check();
  const Finding& f = find(r, Problem::wrong_branch);
  EXPECT_EQ(f.items, std::vector<std::string>{"feature"});
  EXPECT_EQ(f.fix, "git switch main");
}

TEST_F(Sync, DeletedUpstreamBranchesArePruned) {
  git(author, "push -q origin main:gone");
  EXPECT_TRUE(check().clean());
  EXPECT_EQ(rev(work, "upstream/gone"), rev(upstream, "main"));
  git(author, "push -q origin --delete gone");
  EXPECT_TRUE(check().clean());
  EXPECT_NE(shell("cd '" + work.string() + "' && git rev-parse -q --verify refs/remotes/upstream/gone").status, 0);
}

}  // namespace
}  // namespace ako::git::testing
