#pragma once
// How HEAD relates to the start point: equal, behind (a fast-forward fixes it), ahead (local
// commits), or diverged (e.g. upstream history rewritten); and the fast-forward itself.
#include <git2.h>

#include <string>
#include <vector>

namespace ako::git {

struct Divergence {
  std::vector<git_oid> local_only;     // reachable from HEAD, not from upstream (newest first)
  std::vector<git_oid> upstream_only;  // reachable from upstream, not from HEAD
  bool equal() const { return local_only.empty() && upstream_only.empty(); }
  bool behind() const { return local_only.empty() && !upstream_only.empty(); }
  bool ahead() const { return !local_only.empty() && upstream_only.empty(); }
  bool diverged() const { return !local_only.empty() && !upstream_only.empty(); }
};

Divergence compare_histories(git_repository* repo, const git_oid& head, const git_oid& upstream);

// "abc1234 summary" per commit, at most `limit`, then "... and N more".
std::vector<std::string> describe_commits(git_repository* repo, const std::vector<git_oid>& commits,
                                          const std::string& prefix = "", size_t limit = 20);

// Moves branch `branch_ref` (checked out, worktree clean) to `target`, a descendant of its tip:
// the worktree first (safe checkout: never overwrites local changes), then the ref.
void fast_forward(git_repository* repo, const std::string& branch_ref, const git_oid& target);

// Checks out `target`'s tree safely and points HEAD at the branch `branch_ref` (which must
// already point at target).
void switch_to_branch(git_repository* repo, const std::string& branch_ref, const git_oid& target);

}  // namespace ako::git
