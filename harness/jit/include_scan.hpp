#pragma once
// Finds the local headers a source reaches through quoted #include, for the cache key.
#include <filesystem>
#include <string>
#include <vector>

namespace ako::jit {

struct LocalHeader {
  std::string spelled;              // as written: "common.cuh"
  std::filesystem::path resolved;   // empty when no search directory has it
  std::string bytes;
};

// Every header reached from `source` by `#include "..."`, recursively, each once, in a
// fixed order. A quoted name is looked up the way NVRTC does: next to the including
// file, then in `search_dirs` in order. For the main source "next to the including file" is
// `main_dir`: NVRTC 13.0 looks relative to the directory of the *program name* (the display
// name, resolved against the working directory), not of the file the bytes came from
// (checked here: with a program named "sub/main.cuh", `#include "hdr.cuh"` read
// ./sub/hdr.cuh before any -I directory). Headers that resolve under one of `toolkit_dirs` are
// left out (the toolkit identity covers them), as are angle-bracket includes. A quoted
// include that resolves nowhere is still listed (resolved empty), so that creating it later
// changes the key. Includes inside comments or #if 0 are listed too: a harmless extra.
std::vector<LocalHeader> scan_local_includes(const std::filesystem::path& source,
                                             const std::string& source_text,
                                             const std::filesystem::path& main_dir,
                                             const std::vector<std::filesystem::path>& search_dirs,
                                             const std::vector<std::filesystem::path>& toolkit_dirs);

}  // namespace ako::jit
