#pragma once
// The cache directory's lock (<dir>/lock, flock): a writer of an entry holds it exclusive while
// it writes the entry's three files, so no two writers of one key interleave them and no load
// or prune runs meanwhile; loads hold it shared, the pruner exclusive. Every load still checks
// the entry's sha256 (disk_cache.hpp): that catches damage from outside ako.
#include <filesystem>

namespace ako::jit {

class CacheLock {
 public:
  enum class Mode { shared, exclusive };
  // Blocks until the lock is held. Where the lock file cannot be opened (a read-only cache)
  // nothing is held: whatever then writes fails by itself and says so.
  CacheLock(const std::filesystem::path& dir, Mode mode);
  ~CacheLock();
  CacheLock(const CacheLock&) = delete;
  CacheLock& operator=(const CacheLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace ako::jit
