#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "common/error.hpp"

namespace ako {

namespace {

// The temporary's name beside the target: hidden, and this process's own.
std::filesystem::path temp_name(const std::filesystem::path& dir, const std::filesystem::path& file) {
  return dir / ("." + file.filename().string() + ".tmp." + std::to_string(::getpid()));
}

// The named temporaries that writers killed between naming and renaming left beside `file`
// (`.<file>.tmp.<pid>` of a pid no longer alive): that window is a few microseconds, but a
// SIGKILL can land in it and nothing else would ever remove the file. A pid that is alive, or
// belongs to another user (EPERM), may be a writer at work and is left alone.
void remove_dead_writers_temporaries(const std::filesystem::path& dir, const std::filesystem::path& file) {
  const std::string prefix = "." + file.filename().string() + ".tmp.";
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() - prefix.size() > 9) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid <= 0 || pid == ::getpid()) continue;   // our own is replaced below anyway
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove(it->path(), ignored);
  }
}

bool write_all(int fd, const std::string& content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// The content in an unnamed file (O_TMPFILE), named only once it is complete: a process killed
// while writing leaves nothing behind (a named temporary would stay). False where the file
// system cannot (then the caller writes a named temporary); throws when the write itself fails.
bool write_unnamed_then_link(const std::filesystem::path& dir, const std::filesystem::path& tmp,
                             const std::string& content) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  if (!write_all(fd, content)) {
    const int err = errno;
    ::close(fd);
    throw Error("cannot write a temporary file in " + dir.string() + ": " + std::strerror(err ? err : ENOSPC));
  }
  std::error_code ec;
  std::filesystem::remove(tmp, ec);   // a leftover of an earlier process with this pid
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  const bool linked = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) == 0;
  ::close(fd);
  return linked;
}

void write_named(const std::filesystem::path& tmp, const std::string& content) {
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + tmp.string() + ": " + std::strerror(errno));
  out << content;
  out.flush();
  if (!out) {
    const int err = errno;
    out.close();
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw Error("cannot write " + tmp.string() + ": " + std::strerror(err));
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, const std::string& content) {
  const auto dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto tmp = temp_name(dir, file);
  remove_dead_writers_temporaries(dir, file);
  if (!write_unnamed_then_link(dir, tmp, content)) write_named(tmp, content);
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error("cannot replace " + file.string() + ": " + ec.message());
  }
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot read " + file.string() + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ako
