#pragma once
// The engine repository as `ako mirror` and `ako port` see it (libgit2, never the git CLI):
// where HEAD is, which branch is the default, what is dirty, and the port branch.
// Plain values out, so harness/port/ never includes <git2.h>.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ako::git {

struct EngineState {
  std::filesystem::path workdir;    // the worktree root (the engine checkout)
  std::string head_oid;             // hex; empty when HEAD is unborn
  std::string head_branch;          // short name; empty when detached
  std::string default_branch;       // origin/HEAD, else upstream/HEAD, else main, else master
  std::string default_origin;       // where default_branch came from, in words
  std::vector<std::string> dirty;   // staged, unstaged, untracked and conflicted paths (sorted, unique)
};

// Reads the engine checkout at `dir`, which `option` (--to, --from) named. Throws GitError when
// dir does not exist, is not a repository, or is a folder inside one rather than its top.
EngineState read_engine_state(const std::filesystem::path& dir, const std::string& option);

// The content of `path` (repository-relative) at commit `oid`, or nullopt when the commit or
// the path is not there (a shallow clone, a file added later).
std::optional<std::string> read_blob_at(const std::filesystem::path& dir, const std::string& oid,
                                        const std::string& path);

// Creates branch `name` at HEAD and checks it out (the worktree does not change: same commit).
// An existing branch at HEAD is checked out; one pointing elsewhere is refused (GitError with
// the fix). Returns true when the branch was created.
bool switch_to_new_branch(const std::filesystem::path& dir, const std::string& name);

}  // namespace ako::git
