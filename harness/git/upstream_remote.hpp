#pragma once
// The `upstream` remote: found, or created from a configured URL (else origin's), then fetched
// the way `git fetch upstream --prune && git remote set-head upstream -a` would.
#include <optional>
#include <string>

#include "git/handles.hpp"

namespace ako::git {

inline constexpr const char* kUpstream = "upstream";

struct UpstreamRemote {
  Remote remote;
  std::string url;
  std::string url_source;  // "existing remote", the configured source, or "origin's URL"
  bool created = false;
};

// The upstream remote; when missing, adds it with `configured_url` (described by
// `configured_source`), else with origin's URL. Throws GitError with the fix when neither exists.
UpstreamRemote ensure_upstream_remote(git_repository* repo, const std::string& configured_url,
                                      const std::string& configured_source);

// Fetches every branch of the remote and prunes deleted ones; points
// refs/remotes/upstream/HEAD at the branch the remote's HEAD names. Returns that branch
// (short name), or nullopt when the remote does not say. Throws GitError on failure (bad URL,
// no network), naming the URL and the fix.
std::optional<std::string> fetch_upstream(git_repository* repo, git_remote* remote);

}  // namespace ako::git
