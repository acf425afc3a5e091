#pragma once
// The default branch, in the order: configured, else what refs/remotes/upstream/HEAD
// points to, else `main`.
#include <git2.h>

#include <string>

#include "git/hygiene_report.hpp"

namespace ako::git {

struct DefaultBranch {
  std::string name;
  BranchSource source = BranchSource::fallback_main;
  std::string origin;  // e.g. "--default-branch", "ako.defaultBranch config", "refs/remotes/upstream/HEAD"
};

// `configured` (empty when not configured) comes from `configured_origin`.
DefaultBranch resolve_default_branch(git_repository* repo, const std::string& configured,
                                     const std::string& configured_origin);

}  // namespace ako::git
