// The upstream remote (found, or created from --upstream-url / ako.upstreamUrl / origin's URL),
// its fetch (local paths and file:// URLs), and the default branch: configured, else
// upstream/HEAD, else main. What stops the check itself throws GitError with the fix.
#include "git/hygiene.hpp"
#include "git/libgit2.hpp"
#include "repo_fixture.hpp"

namespace ako::git::testing {
namespace {

class Remote : public RepoFixture {
 protected:
  std::string error_of(const HygieneOptions& o) {
    try {
      check_hygiene(o);
    } catch (const GitError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(Remote, MissingUpstreamIsCreatedFromOriginOnce) {
  const HygieneReport first = check_hygiene({.root = work});
  EXPECT_TRUE(first.facts.upstream_created);
  EXPECT_EQ(first.facts.upstream_url_source, "origin's URL");
  EXPECT_EQ(first.facts.upstream_url, git(work, "remote get-url origin").substr(0, first.facts.upstream_url.size()));
  EXPECT_EQ(git(work, "remote get-url upstream"), git(work, "remote get-url origin"));
  EXPECT_EQ(rev(work, "refs/remotes/upstream/main"), rev(upstream, "main"));
  const HygieneReport again = check_hygiene({.root = work});
  EXPECT_FALSE(again.facts.upstream_created);
  EXPECT_EQ(again.facts.upstream_url_source, "existing remote");
}

TEST_F(Remote, ConfiguredUrlWinsOverOriginAndFileUrlsFetch) {
  git(dir, "clone -q --bare upstream.git mirror.git");
  const std::string file_url = "file://" + (dir / "mirror.git").string();
  const HygieneReport r = check_hygiene({.root = work, .upstream_url = file_url});
  EXPECT_EQ(r.facts.upstream_url, file_url);
  EXPECT_EQ(r.facts.upstream_url_source, "--upstream-url");
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(git(work, "remote get-url upstream"), file_url + "\n");
}

TEST_F(Remote, UpstreamUrlFromRepositoryConfig) {
  git(work, "remote remove origin");
  git(work, "config ako.upstreamUrl '" + upstream.string() + "'");
  const HygieneReport r = check_hygiene({.root = work});
  EXPECT_EQ(r.facts.upstream_url_source, "ako.upstreamUrl config");
  EXPECT_TRUE(r.clean());
}

TEST_F(Remote, NoUpstreamNoOriginNoUrlSaysHowToFixIt) {
  git(work, "remote remove origin");
  const std::string e = error_of({.root = work});
  EXPECT_TRUE(contains(e, "no 'upstream' remote")) << e;
  EXPECT_TRUE(contains(e, "git remote add upstream <url>")) << e;
}

TEST_F(Remote, FetchFailureNamesTheUrlAndTheFix) {
  git(work, "remote add upstream '" + (dir / "nowhere.git").string() + "'");
  const std::string e = error_of({.root = work});
  EXPECT_TRUE(contains(e, "fetch from upstream (" + (dir / "nowhere.git").string() + ") failed")) << e;
  EXPECT_TRUE(contains(e, "git remote set-url upstream")) << e;
}

TEST_F(Remote, NotARepositoryIsAnEnvironmentError) {
  fs::create_directories(dir / "plain");
  const std::string e = error_of({.root = dir / "plain"});
  EXPECT_TRUE(contains(e, "not a git repository")) << e;
}

TEST_F(Remote, DefaultBranchFollowsUpstreamHead) {
  git(author, "push -q origin main:trunk");
  git(upstream, "symbolic-ref HEAD refs/heads/trunk");
  const HygieneReport r = check_hygiene({.root = work});
  EXPECT_EQ(r.facts.default_branch, "trunk");
  EXPECT_EQ(r.facts.default_branch_source, BranchSource::upstream_head);
  EXPECT_EQ(git(work, "symbolic-ref refs/remotes/upstream/HEAD"), "refs/remotes/upstream/trunk\n");
  // The clone sits on main, which is not the default branch now, and trunk has no local branch yet.
  ASSERT_TRUE(r.has(Problem::wrong_branch));
  EXPECT_EQ(r.findings.front().fix, "git switch -c trunk --track upstream/trunk");
}

TEST_F(Remote, ConfiguredDefaultBranchWinsOverUpstreamHead) {
  git(author, "push -q origin main:trunk");
  git(upstream, "symbolic-ref HEAD refs/heads/trunk");
  const HygieneReport opt = check_hygiene({.root = work, .default_branch = "main"});
  EXPECT_EQ(opt.facts.default_branch, "main");
  EXPECT_EQ(opt.facts.default_branch_source, BranchSource::configured);
  EXPECT_EQ(opt.facts.default_branch_origin, "--default-branch");
  EXPECT_TRUE(opt.clean());
  git(work, "config ako.defaultBranch main");
  const HygieneReport cfg = check_hygiene({.root = work});
  EXPECT_EQ(cfg.facts.default_branch_source, BranchSource::configured);
  EXPECT_EQ(cfg.facts.default_branch_origin, "ako.defaultBranch config");
  EXPECT_TRUE(cfg.clean());
}

TEST_F(Remote, FallsBackToMainWhenUpstreamHeadNamesNothing) {
  git(upstream, "symbolic-ref HEAD refs/heads/unborn");
  const HygieneReport r = check_hygiene({.root = work});
  EXPECT_EQ(r.facts.default_branch, "main");
  EXPECT_EQ(r.facts.default_branch_source, BranchSource::fallback_main);
  EXPECT_TRUE(r.clean());
}

TEST_F(Remote, ConfiguredBranchUpstreamLacksListsWhatExists) {
  const std::string e = error_of({.root = work, .default_branch = "master"});
  EXPECT_TRUE(contains(e, "upstream has no branch 'master'")) << e;
  EXPECT_TRUE(contains(e, "upstream's branches: main")) << e;
  EXPECT_TRUE(contains(e, "--default-branch")) << e;
}

}  // namespace
}  // namespace ako::git::testing
