#include "common/scratch_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <regex>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"

namespace fs = std::filesystem;

namespace ako {

namespace {

constexpr const char* kSweptSuffix = ".swept";

// Whether the open file `fd` is still the one at `path` (not unlinked nor replaced).
bool same_file(int fd, const fs::path& path) {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

}  // namespace

ScratchFolder::ScratchFolder(fs::path dir) : dir_(std::move(dir)) {
  // A sweep may be removing a folder of this name left by a killed process with this PID: take
  // the mark, then check that it is still the folder's; else make the folder again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw Error(fmt::format("cannot create the scratch folder {}: {}", dir_.string(), ec.message()));
    const fs::path mark = dir_ / kScratchMark;
    const int fd = ::open(mark.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == ENOENT) continue;   // the folder went away under us: a sweep renamed it
      throw Error(fmt::format("cannot create {}: {}", mark.string(), std::strerror(errno)));
    }
    // Not blocking: the only other holder can be a sweep (for a moment) or a process of the same
    // PID in another PID namespace sharing this $TMPDIR (for as long as it runs).
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && same_file(fd, mark)) {
      fd_ = fd;
      return;
    }
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw Error(fmt::format("cannot take the scratch folder {}: another process holds it", dir_.string()));
}

ScratchFolder::~ScratchFolder() {
  ::unlink((dir_ / kScratchMark).c_str());   // before the lock ends: a sweep never sees it unheld
  ::close(fd_);
  std::error_code ec;
  fs::remove(dir_, ec);   // only when empty
}

fs::path scratch_path(const std::string& command, int part) {
  return fs::temp_directory_path() /
         (part < 0 ? fmt::format("ako-{}-{}", command, ::getpid()) : fmt::format("ako-{}-{}-{}", command, ::getpid(), part));
}

bool is_scratch_name(const std::string& name) {
  static const std::regex pattern(R"(ako-(run|tune|iterate|sanitize)-[0-9]+(-[0-9]+)?(\.swept)?)");
  return std::regex_match(name, pattern);
}

std::vector<fs::path> sweep_orphaned_scratch(const fs::path& tmp) {
  std::vector<fs::path> removed;
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path dir = it->path();
    if (!is_scratch_name(dir.filename().string())) continue;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
    const fs::path mark = dir / kScratchMark;
    const int fd = ::open(mark.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;   // no mark: kept on purpose, or not ours to judge
    // Held: a live run's. Taken: its process is gone, unless it removed the mark just now.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || !same_file(fd, mark)) {
      ::close(fd);
      continue;
    }
    // Renamed while held, so a new process of the same PID makes a fresh folder meanwhile.
    fs::path doomed = dir;
    if (!dir.filename().string().ends_with(kSweptSuffix)) {
      doomed += kSweptSuffix;
      std::error_code rename_error;
      fs::rename(dir, doomed, rename_error);
      if (rename_error) {
        ::close(fd);
        continue;
      }
    }
    std::error_code remove_error;
    fs::remove_all(doomed, remove_error);
    ::close(fd);
    if (!remove_error) removed.push_back(dir);
  }
  return removed;
}

void sweep_orphaned_scratch_and_say() {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return;
  const std::vector<fs::path> removed = sweep_orphaned_scratch(tmp);
  if (removed.empty()) return;
  std::vector<std::string> names;
  for (const fs::path& p : removed) names.push_back(p.string());
  fmt::print(stderr, "ako: removed {} scratch folder{} left by a killed ako: {}\n", removed.size(),
             removed.size() == 1 ? "" : "s", fmt::join(names, ", "));
}

}  // namespace ako
