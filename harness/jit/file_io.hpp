#pragma once
// Whole-file reads and atomic writes for the jit stage.
#include <filesystem>
#include <optional>
#include <string>

#include "common/error.hpp"

namespace ako::jit {

// The file's bytes; throws ako::Error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& file);
// nullopt when the file is absent or unreadable.
std::optional<std::string> try_read_file(const std::filesystem::path& file);

// A file or folder that could not be written (read-only, full disk, no permission):
// what() names the path and the system's reason.
struct WriteError : Error {
  WriteError(const std::filesystem::path& path, const std::string& why)
      : Error("cannot write " + path.string() + ": " + why), path(path), why(why) {}
  std::filesystem::path path;
  std::string why;
};

// Writes to a uniquely named temporary file in the same directory, then rename()s it over
// `file`: readers see the old file or the whole new one, never a partial one, and two
// processes writing the same bytes concurrently are harmless. A failed write removes its
// temporary file and throws WriteError naming `file`. No fsync: a cache entry cut short by a
// power loss fails its sha256 check on the next load and is rebuilt (disk_cache.hpp).
void write_file_atomic(const std::filesystem::path& file, const std::string& bytes);

// create_directories that tolerates another process creating the same folders at the same
// time; throws WriteError naming the folder.
void make_directories(const std::filesystem::path& dir);

}  // namespace ako::jit
