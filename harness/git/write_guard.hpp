#pragma once
// ako's writes into a repository (a branch, a checkout, the index, a commit) made safe to kill.
// libgit2, like git, writes a ref, the index or HEAD as "<file>.lock" and renames it into place
// when complete; a process killed in between leaves the .lock behind, and every later git
// command, ako's or git's, then refuses to write that file ("failed to lock file"). So an ako
// command that writes to a repository holds a WriteGuard for as long as it may write:
//   - an flock(2) on <git dir>/ako-write.flock: one ako writer per repository at a time (a
//     second is refused at once, naming the first's pid);
//   - a marker, <git dir>/ako-write.pending, made when the guard is taken and removed when it is
//     released, however the command ends, unless the process is killed.
// The next ako to take the guard and find a marker knows its predecessor died while it could
// write: it removes every *.lock file in the git folder made since that marker (the dead
// process's; an older one belongs to something else and is left alone) and says which.
#include <filesystem>
#include <string>
#include <vector>

namespace ako::git {

class WriteGuard {
 public:
  // `root`: a folder of the repository's worktree. Throws GitError when it is no repository or
  // another ako holds the guard.
  explicit WriteGuard(const std::filesystem::path& root);
  WriteGuard(const WriteGuard&) = delete;
  WriteGuard& operator=(const WriteGuard&) = delete;
  ~WriteGuard();

  // What taking the guard repaired, one line per lock file removed; empty when nothing was left.
  const std::vector<std::string>& repaired() const { return repaired_; }

 private:
  std::filesystem::path marker_;
  int fd_ = -1;
  std::vector<std::string> repaired_;
};

}  // namespace ako::git
