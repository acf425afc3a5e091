#include "jit/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace ako::jit {

std::optional<std::string> try_read_file(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;  // a folder opens, then reads nothing
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(bytes).str();
}

std::string read_file(const fs::path& file) {
  auto bytes = try_read_file(file);
  if (!bytes) throw Error("cannot read " + file.string() + ": " + std::strerror(errno));
  return *bytes;
}

namespace {

// write(2) until done; false with errno set on failure (ENOSPC, EFBIG, EIO...).
bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

void write_file_atomic(const fs::path& file, const std::string& bytes) {
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = file.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw WriteError(file, std::strerror(errno));
  const bool written = write_all(fd, bytes);
  const int write_errno = errno;
  // close() reports what a network or quota-limited file system deferred.
  const bool closed = ::close(fd) == 0;
  const int close_errno = errno;
  if (!written || !closed) {
    ::unlink(tmp.c_str());
    throw WriteError(file, std::strerror(!written ? write_errno : close_errno));
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw WriteError(file, why);
  }
}

void make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec && !fs::is_directory(dir)) throw WriteError(dir, ec.message());
}

}  // namespace ako::jit
