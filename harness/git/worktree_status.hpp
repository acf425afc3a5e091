#pragma once
// Is the worktree clean, as `git status --porcelain` sees it: staged, unstaged and untracked
// files count; ignored files do not.
#include <git2.h>

#include <string>
#include <vector>

#include "git/hygiene_report.hpp"

namespace ako::git {

struct WorktreeStatus {
  std::vector<std::string> staged, unstaged, untracked, conflicted;  // repository-relative paths
  bool clean() const { return staged.empty() && unstaged.empty() && untracked.empty() && conflicted.empty(); }
};

WorktreeStatus read_worktree_status(git_repository* repo);

// One finding per kind of dirt, each with its paths and its fix.
std::vector<Finding> worktree_findings(const WorktreeStatus& status);

}  // namespace ako::git
