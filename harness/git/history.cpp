#include "git/history.hpp"

#include "git/handles.hpp"
#include "git/libgit2.hpp"

namespace ako::git {

namespace {

std::vector<git_oid> reachable_from_not_from(git_repository* repo, const git_oid& tip, const git_oid& hide) {
  git_revwalk* raw = nullptr;
  check(git_revwalk_new(&raw, repo), "start a revision walk");
  const Revwalk walk(raw);
  git_revwalk_sorting(raw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  check(git_revwalk_push(raw, &tip), "walk from " + oid_hex(tip));
  check(git_revwalk_hide(raw, &hide), "hide " + oid_hex(hide));
  std::vector<git_oid> out;
  git_oid oid;
  while (git_revwalk_next(&oid, raw) == 0) out.push_back(oid);
  return out;
}

void checkout_safely(git_repository* repo, const git_oid& target) {
  const Commit commit = lookup_commit(repo, target);
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_SAFE;
  check(git_checkout_tree(repo, reinterpret_cast<const git_object*>(commit.get()), &opts),
        "check out " + short_oid(target));
}

}  // namespace

Divergence compare_histories(git_repository* repo, const git_oid& head, const git_oid& upstream) {
  return {reachable_from_not_from(repo, head, upstream), reachable_from_not_from(repo, upstream, head)};
}

std::vector<std::string> describe_commits(git_repository* repo, const std::vector<git_oid>& commits,
                                          const std::string& prefix, size_t limit) {
  std::vector<std::string> out;
  for (size_t i = 0; i < commits.size() && i < limit; ++i) out.push_back(prefix + commit_oneline(repo, commits[i]));
  if (commits.size() > limit) out.push_back(prefix + "... and " + std::to_string(commits.size() - limit) + " more");
  return out;
}

void fast_forward(git_repository* repo, const std::string& branch_ref, const git_oid& target) {
  checkout_safely(repo, target);
  const auto ref = lookup_reference(repo, branch_ref);
  if (!ref) throw GitError("fast-forward: " + branch_ref + " does not exist");
  git_reference* moved = nullptr;
  check(git_reference_set_target(&moved, ref->get(), &target, ("ako: fast-forward to " + oid_hex(target)).c_str()),
        "fast-forward " + branch_ref);
  git_reference_free(moved);
}

void switch_to_branch(git_repository* repo, const std::string& branch_ref, const git_oid& target) {
  checkout_safely(repo, target);
  check(git_repository_set_head(repo, branch_ref.c_str()), "switch to " + branch_ref);
}

}  // namespace ako::git
