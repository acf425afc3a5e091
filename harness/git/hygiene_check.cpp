#include "git/hygiene.hpp"

#include "git/default_branch.hpp"
#include "git/handles.hpp"
#include "git/history.hpp"
#include "git/libgit2.hpp"
#include "git/repo_config.hpp"
#include "git/upstream_remote.hpp"
#include "git/worktree_status.hpp"

namespace ako::git {

namespace {

constexpr std::string_view kIterationPrefix = "opt/";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::vector<std::string> upstream_branches(git_repository* repo) {
  std::vector<std::string> out;
  git_branch_iterator* it = nullptr;
  check(git_branch_iterator_new(&it, repo, GIT_BRANCH_REMOTE), "list remote branches");
  git_reference* ref = nullptr;
  git_branch_t type;
  while (git_branch_next(&ref, &type, it) == 0) {
    const std::string name = git_reference_shorthand(ref);
    if (name.starts_with("upstream/") && name != "upstream/HEAD") out.push_back(name.substr(9));
    git_reference_free(ref);
  }
  git_branch_iterator_free(it);
  return out;
}

git_oid resolve_start_point(git_repository* repo, const std::string& branch, const DefaultBranch& from) {
  const auto ref = lookup_reference(repo, "refs/remotes/upstream/" + branch);
  if (!ref)
    throw GitError("upstream has no branch '" + branch + "' (default branch " + to_string(from.source) + ", " +
                   from.origin + "); upstream's branches: " + join(upstream_branches(repo)) +
                   "\n  fix: ako doctor --default-branch <one of them>  (or git config ako.defaultBranch <branch>)");
  git_reference* resolved = nullptr;
  check(git_reference_resolve(&resolved, ref->get()), "resolve upstream/" + branch);
  const Reference owned(resolved);
  return *git_reference_target(resolved);
}

// How to get onto the default branch from wherever HEAD is.
std::string switch_fix(git_repository* repo, const std::string& branch) {
  if (lookup_reference(repo, "refs/heads/" + branch)) return "git switch " + branch;
  return "git switch -c " + branch + " --track upstream/" + branch;
}

void check_default_branch_sync(git_repository* repo, HygieneReport& r, const std::string& head_ref,
                               const git_oid& head, const git_oid& start, bool clean_tree, bool fast_forward_asked) {
  const std::string& b = r.facts.default_branch;
  const Divergence d = compare_histories(repo, head, start);
  if (d.equal()) return;
  if (d.behind()) {
    if (fast_forward_asked && clean_tree) {
      fast_forward(repo, head_ref, start);
      r.facts.fast_forwarded_from = oid_hex(head);
      r.facts.head_oid = oid_hex(start);
      return;
    }
    r.findings.push_back({Problem::behind,
                          b + " is " + std::to_string(d.upstream_only.size()) + " commit(s) behind upstream/" + b +
                              (fast_forward_asked ? " (not fast-forwarded: the worktree is not clean)" : ""),
                          describe_commits(repo, d.upstream_only),
                          "git merge --ff-only upstream/" + b + "  (or: ako doctor --ff)"});
    return;
  }
  const std::string backup = "ako-saved/" + b + "-" + short_oid(head);
  const std::string fix = "git branch " + backup + " && git reset --hard upstream/" + b +
                          "  (keeps your commits on " + backup + ")";
  if (d.ahead()) {
    r.findings.push_back({Problem::ahead,
                          b + " has " + std::to_string(d.local_only.size()) + " local commit(s) not on upstream/" + b,
                          describe_commits(repo, d.local_only), fix});
    return;
  }
  auto items = describe_commits(repo, d.local_only, "local only:    ");
  const auto theirs = describe_commits(repo, d.upstream_only, "upstream only: ");
  items.insert(items.end(), theirs.begin(), theirs.end());
  r.findings.push_back({Problem::diverged,
                        b + " and upstream/" + b + " have diverged (" + std::to_string(d.local_only.size()) +
                            " local, " + std::to_string(d.upstream_only.size()) +
                            " upstream commits: local commits, or upstream history rewritten)",
                        items, fix});
}

// An iteration branch ako made may carry iteration commits, but must start from the current
// start point.
void check_iteration_branch(git_repository* repo, HygieneReport& r, const git_oid& head, const git_oid& start) {
  const Divergence d = compare_histories(repo, head, start);
  r.facts.iteration_commits = describe_commits(repo, d.local_only);
  if (d.upstream_only.empty()) return;
  const std::string& b = r.facts.default_branch;
  r.findings.push_back({Problem::stale_iteration_branch,
                        r.facts.head_branch + " does not contain upstream/" + b + " (" +
                            std::to_string(d.upstream_only.size()) + " upstream commit(s) missing)",
                        describe_commits(repo, d.upstream_only),
                        "git merge --no-edit upstream/" + b + "  (append-only: the iteration history stays)"});
}

}  // namespace

HygieneReport check_hygiene(const HygieneOptions& opt) {
  const Repository repo_owner = open_repository(opt.root);
  git_repository* repo = repo_owner.get();
  HygieneReport r;
  r.facts.repository = std::filesystem::path(git_repository_workdir(repo)).lexically_normal().string();
  if (r.facts.repository.ends_with('/')) r.facts.repository.pop_back();

  // 1. upstream remote (created when missing), fetched.
  std::string url = opt.upstream_url, url_source = "--upstream-url";
  if (url.empty()) {
    url = config_string(repo, kUpstreamUrlKey).value_or("");
    url_source = std::string(kUpstreamUrlKey) + " config";
  }
  UpstreamRemote upstream = ensure_upstream_remote(repo, url, url_source);
  r.facts.upstream_url = upstream.url;
  r.facts.upstream_url_source = upstream.url_source;
  r.facts.upstream_created = upstream.created;
  fetch_upstream(repo, upstream.remote.get());

  // 2. default branch and the start point upstream/<default>.
  std::string configured = opt.default_branch, configured_origin = "--default-branch";
  if (configured.empty()) {
    configured = config_string(repo, kDefaultBranchKey).value_or("");
    configured_origin = std::string(kDefaultBranchKey) + " config";
  }
  const DefaultBranch branch = resolve_default_branch(repo, configured, configured_origin);
  r.facts.default_branch = branch.name;
  r.facts.default_branch_source = branch.source;
  r.facts.default_branch_origin = branch.origin;
  const git_oid start = resolve_start_point(repo, branch.name, branch);
  r.facts.start_point = oid_hex(start);

  // 3. the worktree: staged, unstaged, untracked (ignored files do not count).
  const WorktreeStatus status = read_worktree_status(repo);
  r.findings = worktree_findings(status);

  // 4. where HEAD is, and how it relates to the start point.
  if (git_repository_head_unborn(repo) == 1) {
    r.findings.push_back({Problem::no_local_branch, "HEAD is on a branch with no commits yet", {},
                          "git checkout -B " + branch.name + " --track upstream/" + branch.name});
    return r;
  }
  git_reference* head_raw = nullptr;
  check(git_repository_head(&head_raw, repo), "read HEAD");
  const Reference head(head_raw);
  const git_oid head_oid = *git_reference_target(head_raw);
  r.facts.head_oid = oid_hex(head_oid);
  if (git_repository_head_detached(repo) == 1) {
    r.findings.push_back({Problem::detached_head,
                          "HEAD is detached at " + commit_oneline(repo, head_oid) + " (not on a branch)",
                          {commit_oneline(repo, head_oid)}, switch_fix(repo, branch.name)});
    return r;
  }
  r.facts.head_branch = git_reference_shorthand(head_raw);
  if (r.facts.head_branch == branch.name) {
    check_default_branch_sync(repo, r, git_reference_name(head_raw), head_oid, start, status.clean(), opt.fast_forward);
  } else if (r.facts.head_branch.starts_with(kIterationPrefix)) {
    check_iteration_branch(repo, r, head_oid, start);
  } else {
    r.findings.push_back({Problem::wrong_branch,
                          "on branch " + r.facts.head_branch + ", not the default branch " + branch.name +
                              " (nor an iteration branch opt/<task>)",
                          {r.facts.head_branch}, switch_fix(repo, branch.name)});
  }
  return r;
}

}  // namespace ako::git
