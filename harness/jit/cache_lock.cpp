#include "jit/cache_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace ako::jit {

CacheLock::CacheLock(const std::filesystem::path& dir, Mode mode) {
  fd_ = ::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fd_ = ::open((dir / "lock").c_str(), O_RDONLY | O_CLOEXEC);  // flock needs no write access
  if (fd_ < 0) return;
  while (::flock(fd_, mode == Mode::shared ? LOCK_SH : LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    ::close(fd_);
    fd_ = -1;
    return;
  }
}

CacheLock::~CacheLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace ako::jit
