// create_iteration_branch and leave_iteration_branch (declared in hygiene.hpp): opt/<task>
// from the start point, and back to where the user was when an iteration fails.
#include "git/handles.hpp"
#include "git/history.hpp"
#include "git/hygiene.hpp"
#include "git/libgit2.hpp"

namespace ako::git {

IterationBranch create_iteration_branch(const std::filesystem::path& root, const std::string& task,
                                        const std::string& start_point, bool reuse_existing) {
  const Repository repo_owner = open_repository(root);
  git_repository* repo = repo_owner.get();
  const std::string name = "opt/" + task, ref_name = "refs/heads/" + name;
  int valid = 0;
  check(git_reference_name_is_valid(&valid, ref_name.c_str()), "check the branch name " + name);
  if (!valid) throw GitError("'" + name + "' is not a valid branch name: pick a task name without spaces, '..' or '~^:?*['");
  git_oid start;
  if (git_oid_fromstr(&start, start_point.c_str()) < 0)
    throw GitError("start point '" + start_point + "' is not a commit id");
  const Commit start_commit = lookup_commit(repo, start);

  if (const auto existing = lookup_reference(repo, ref_name)) {
    const git_oid at = *git_reference_target(existing->get());
    if (!git_oid_equal(&at, &start) && !reuse_existing)
      throw Refusal({Problem::branch_exists,
                     name + " already exists at " + commit_oneline(repo, at) + ", not at the start point " +
                         short_oid(start),
                     {name + " " + commit_oneline(repo, at)},
                     "git switch " + name + "  (to continue it), or git branch -m " + name +
                         " " + name + "-old  (to start afresh)"});
    switch_to_branch(repo, ref_name, at);
    return {name, oid_hex(at), false};
  }
  git_reference* created = nullptr;
  check(git_branch_create(&created, repo, name.c_str(), start_commit.get(), 0), "create branch " + name);
  git_reference_free(created);
  switch_to_branch(repo, ref_name, start);
  return {name, oid_hex(start), true};
}

bool leave_iteration_branch(const std::filesystem::path& root, const std::string& previous,
                            const IterationBranch& made) {
  const Repository repo_owner = open_repository(root);
  git_repository* repo = repo_owner.get();
  const auto branch = lookup_reference(repo, "refs/heads/" + made.name);
  git_oid made_at;
  if (git_oid_fromstr(&made_at, made.oid.c_str()) < 0) throw GitError("'" + made.oid + "' is not a commit id");
  if (branch && !git_oid_equal(git_reference_target(branch->get()), &made_at)) return false;
  const std::string previous_ref = "refs/heads/" + previous;
  const auto back = lookup_reference(repo, previous_ref);
  if (!back) throw GitError("branch " + previous + " no longer exists; HEAD stays on " + made.name);
  switch_to_branch(repo, previous_ref, *git_reference_target(back->get()));
  if (made.created && branch) check(git_branch_delete(branch->get()), "delete branch " + made.name);
  return true;
}

}  // namespace ako::git
