#include "git/write_guard.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "common/atomic_file.hpp"
#include "git/handles.hpp"
#include "git/libgit2.hpp"

namespace ako::git {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFlock = "ako-write.flock";
constexpr const char* kMarker = "ako-write.pending";

// The folders libgit2 takes locks in: the repository's git folder and, for a linked worktree,
// the common one (refs, packed-refs, config).
std::vector<fs::path> git_dirs(const fs::path& root) {
  const Repository repo = open_repository(root);
  std::set<fs::path> dirs{fs::path(git_repository_path(repo.get())).lexically_normal()};
  if (const char* common = git_repository_commondir(repo.get())) dirs.insert(fs::path(common).lexically_normal());
  return {dirs.begin(), dirs.end()};
}

bool newer_or_equal(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}

// *.lock files under `dir` (objects/ holds no locks and may be huge) made at or after `since`.
void remove_locks_since(const fs::path& dir, const struct timespec& since, std::vector<std::string>& removed) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory() && it->path().filename() == "objects") {
      it.disable_recursion_pending();
      continue;
    }
    const fs::path& p = it->path();
    if (p.extension() != ".lock" || !it->is_regular_file()) continue;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || !newer_or_equal(st.st_mtim, since)) continue;
    std::error_code rm;
    if (fs::remove(p, rm)) removed.push_back(p.string());
  }
}

}  // namespace

WriteGuard::WriteGuard(const fs::path& root) {
  const std::vector<fs::path> dirs = git_dirs(root);
  const fs::path& dir = dirs.front();
  const fs::path flock_file = dir / kFlock;
  marker_ = dir / kMarker;
  fd_ = ::open(flock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw GitError("cannot open " + flock_file.string() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder;
    std::ifstream(marker_) >> holder;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw GitError("another ako (pid " + (holder.empty() ? std::string("unknown") : holder) +
                     ") is writing to the repository at " + root.string() + "; wait for it to finish");
    throw GitError("cannot lock " + flock_file.string() + ": " + std::strerror(err));
  }
  // A marker under our lock: its writer is gone, killed while it could write.
  struct stat st {};
  if (::stat(marker_.c_str(), &st) == 0) {
    for (const fs::path& d : dirs) remove_locks_since(d, st.st_mtim, repaired_);
    for (auto& line : repaired_) line = "removed " + line + ", left by an ako killed while writing to the repository";
  }
  write_file_atomically(marker_, std::to_string(::getpid()) + "\n");
}

WriteGuard::~WriteGuard() {
  if (fd_ < 0) return;
  std::error_code ec;
  fs::remove(marker_, ec);
  ::close(fd_);   // releases the lock
}

}  // namespace ako::git
