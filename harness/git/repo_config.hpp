#pragma once
// ako's own settings in the repository's git config (`git config ako.upstreamUrl URL`,
// `git config ako.defaultBranch B`): the workspace-level "configured" values of the issue.
#include <git2.h>

#include <optional>
#include <string>

namespace ako::git {

inline constexpr const char* kUpstreamUrlKey = "ako.upstreamUrl";
inline constexpr const char* kDefaultBranchKey = "ako.defaultBranch";

// The value from the repository's config (local, global or system), or nullopt when unset.
std::optional<std::string> config_string(git_repository* repo, const char* key);

}  // namespace ako::git
