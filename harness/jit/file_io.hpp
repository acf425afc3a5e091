#pragma once
// Whole-file reads and atomic writes for the jit stage.
#include <filesystem>
#include <optional>
#include <string>

namespace ako::jit {

// The file's bytes; throws ako::Error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& file);
// nullopt when the file is absent or unreadable.
std::optional<std::string> try_read_file(const std::filesystem::path& file);

// Writes to a uniquely named temporary file in the same directory, then rename()s it over
// `file`: readers see the old file or the whole new one, never a partial one, and two
// processes writing the same bytes concurrently are harmless. No fsync: a cache entry lost
// in a power cut is only a miss. Throws ako::Error on failure.
void write_file_atomic(const std::filesystem::path& file, const std::string& bytes);

}  // namespace ako::jit
