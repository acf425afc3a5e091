#pragma once
// Write a file so that readers see either the old content or the new, never a half-written
// one: write a temporary file in the same folder, then rename it over the target. The
// temporary is unnamed (O_TMPFILE) while it is written and named only for the rename, so a
// process killed at any moment leaves no half-written file behind, under either name (where
// the file system has no O_TMPFILE, a named `.<file>.tmp.<pid>` is written instead). A writer
// killed between the naming and the rename leaves its whole temporary: the next write of the
// same file removes those of writers no longer alive.
#include <filesystem>
#include <string>

namespace ako {
void write_file_atomically(const std::filesystem::path& file, const std::string& content);
std::string read_file(const std::filesystem::path& file);  // throws ako::Error naming the file
}  // namespace ako
