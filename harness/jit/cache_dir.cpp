// Where compiled programs live: the user's cache directory, or a scratch directory private
// to this process when caching is off.
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <optional>

#include "common/error.hpp"
#include "jit/build.hpp"
#include "jit/compiler.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

fs::path default_cache_dir() {
  if (const char* dir = std::getenv("AKO_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "ako";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "ako";
  return fs::temp_directory_path() / ("ako-cache-" + std::to_string(getuid()));
}

namespace {

// Owns the scratch directory; only the process that made it removes it (forked compile
// workers leave through _exit and never run this).
struct ScratchDir {
  fs::path path;
  pid_t owner = getpid();
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "ako-jit-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot create a scratch directory under " +
                                              fs::temp_directory_path().string());
    path = pattern;
  }
  ~ScratchDir() {
    if (getpid() != owner) return;
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

fs::path scratch_dir() {
  // Private to the process: a child forked after it was made (which may run as another user)
  // gets its own, and leaves its parent's alone.
  static std::mutex mutex;
  static std::optional<ScratchDir> dir;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!dir || dir->owner != getpid()) dir.emplace();
  return dir->path;
}

}  // namespace ako::jit
