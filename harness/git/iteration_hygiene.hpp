#pragma once
// The hygiene check as `ako iterate` needs it: the work of an iteration (the edited solution,
// the Analysis typed into ITERATIONS.md) is uncommitted by design and is not dirt; anything
// else uncommitted still refuses, as in `ako doctor`.
#include <string>
#include <vector>

#include "git/hygiene.hpp"

namespace ako::git {

// check_hygiene, with changes (staged, unstaged, untracked) under the `allowed` paths
// (repository-relative files or folders) left out of the worktree findings.
HygieneReport check_hygiene_allowing(const HygieneOptions& options, const std::vector<std::string>& allowed);

// Whether `path` is `allowed` itself or lies under it (folder prefixes end at a '/').
bool path_is_under(const std::string& path, const std::string& allowed);

}  // namespace ako::git
