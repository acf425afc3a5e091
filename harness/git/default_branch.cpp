#include "git/default_branch.hpp"

#include "git/handles.hpp"

namespace ako::git {

DefaultBranch resolve_default_branch(git_repository* repo, const std::string& configured,
                                     const std::string& configured_origin) {
  if (!configured.empty()) return {configured, BranchSource::configured, configured_origin};
  constexpr std::string_view kPrefix = "refs/remotes/upstream/";
  if (const auto head = lookup_reference(repo, "refs/remotes/upstream/HEAD");
      head && git_reference_type(head->get()) == GIT_REFERENCE_SYMBOLIC) {
    const std::string target = git_reference_symbolic_target(head->get());
    if (target.starts_with(kPrefix))
      return {target.substr(kPrefix.size()), BranchSource::upstream_head, "refs/remotes/upstream/HEAD"};
  }
  return {"main", BranchSource::fallback_main, "neither configured nor named by upstream/HEAD"};
}

}  // namespace ako::git
