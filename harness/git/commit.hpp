#pragma once
// Commits through libgit2 for `ako iterate` and `ako best`: stage given paths, commit on the
// checked-out branch, and read back what earlier iterations committed. Never the git CLI.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ako::git {

// A file staged from memory: its content is committed before it exists in the worktree
// (iterate renames it into place after the commit; see harness/iterate/TRAJECTORY.md).
struct BufferedFile {
  std::string path;     // repository-relative, '/' separated
  std::string content;
};

struct CommitRequest {
  // Pathspecs staged from the worktree like `git add -A -- <paths>`: new and changed files
  // added, deleted ones removed; ignored files are left out.
  std::vector<std::string> worktree_paths;
  std::vector<BufferedFile> buffered;  // ignored paths are left out (listed in CommitMade)
  std::string message;
};

struct CommitMade {
  std::string oid;                          // hex
  std::vector<std::string> skipped_ignored; // buffered paths the repository's ignore rules exclude
};

// Stages the request into the repository's index, commits it on HEAD's branch (HEAD must be a
// branch with at least one commit) and writes the index. The commit is the atomic step: the
// branch ref moves or it does not. The author is the repository's user.name/user.email, else
// "ako <ako@localhost>". Throws GitError.
CommitMade commit_on_head(const std::filesystem::path& root, const CommitRequest& request);

// Makes the index and worktree match `commit` (hex; empty: HEAD) for the pathspecs: changed
// files are overwritten, files the commit lacks are deleted. Used to restore an iteration's
// exact source and to finish an interrupted iterate. Throws GitError.
void checkout_paths(const std::filesystem::path& root, const std::string& commit,
                    const std::vector<std::string>& pathspecs);

// The index entries of the pathspecs made equal to HEAD's (`git reset -q -- <paths>`); the
// worktree is not touched.
void reset_index_to_head(const std::filesystem::path& root, const std::vector<std::string>& pathspecs);

// `git diff --stat HEAD -- <pathspec>` including untracked files; empty when nothing changed.
std::string diffstat_against_head(const std::filesystem::path& root, const std::string& pathspec);

// Paths under the pathspec that differ between HEAD and the worktree (untracked included).
std::vector<std::string> changed_paths(const std::filesystem::path& root, const std::string& pathspec);

// The newest commit reachable from HEAD (at most `limit` looked at) whose full message
// satisfies `match`; its hex oid.
std::optional<std::string> find_commit(const std::filesystem::path& root,
                                       const std::function<bool(const std::string& message)>& match,
                                       int limit = 10000);

// HEAD's full commit message and hex oid; nullopt when HEAD is unborn.
struct HeadCommit {
  std::string oid, message;
};
std::optional<HeadCommit> head_commit(const std::filesystem::path& root);

}  // namespace ako::git
