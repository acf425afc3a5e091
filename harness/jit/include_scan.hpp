#pragma once
// Finds the local headers a source reaches through #include, for the cache key, and refuses
// an #include that reaches outside the folders a kernel may include from, before NVRTC reads
// anything.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace ako::jit {

// One #include (or #include_next, #import, #embed: every directive that reads a file) as the
// preprocessor sees it: after line splices (backslash-newline, also the ??/ trigraph), with
// comments gone, '%:' and '??=' read as '#'. String and character literals (raw strings too,
// and digit separators such as 1'000) are skipped so a quote inside one never hides a line.
// A literal ends at the end of its line, as the preprocessor ends it. Directives inside #if 0
// are listed too (no condition is evaluated).
struct IncludeDirective {
  std::string name;       // as written between the quotes or brackets; the operand for a computed one
  bool angle = false;     // <...>
  bool computed = false;  // #include MACRO: the file it reads is known only after expansion
  int line = 0;           // 1-based, of the '#'
};
std::vector<IncludeDirective> include_directives(const std::string& text);

struct LocalHeader {
  std::string spelled;              // as written: "common.cuh"
  std::filesystem::path resolved;   // empty when no search directory has it
  std::string bytes;
};

// An #include that reaches outside the allowed folders, or one ako cannot follow (a computed
// #include), or a source that is itself a link to a file outside them.
struct IncludeRefused : Error {
  using Error::Error;
};

// Every header reached from `source` by `#include "..."`, recursively, each once, in a
// fixed order. A quoted name is looked up the way NVRTC does: next to the including
// file, then in `search_dirs` in order. For the main source "next to the including file" is
// `main_dir`: NVRTC 13.0 looks relative to the directory of the *program name* (the display
// name, resolved against the working directory), not of the file the bytes came from
// (checked here: with a program named "sub/main.cuh", `#include "hdr.cuh"` read
// ./sub/hdr.cuh before any -I directory). Headers that resolve under one of `toolkit_dirs` are
// left out (the toolkit identity covers them). A quoted include that resolves nowhere is still
// listed (resolved empty), so that creating it later changes the key. An angle-bracket include
// that `search_dirs` resolve to a file outside the toolkit (a peer's header, an overlay of
// engines/) is listed and followed too; one that resolves nowhere is left to NVRTC (its
// built-in headers).
//
// With `allowed_roots`, every file any directive reaches (after symbolic links are resolved)
// must lie under one of them, the toolkit's folders or `search_dirs`; an absolute name
// outside them is refused even when no such file exists, and so is a computed #include. The
// first one that does not throws IncludeRefused naming the including file, the line, the
// name as written, where it leads and the allowed folders. `display_name` names the source.
std::vector<LocalHeader> scan_local_includes(const std::filesystem::path& source,
                                             const std::string& source_text,
                                             const std::filesystem::path& main_dir,
                                             const std::vector<std::filesystem::path>& search_dirs,
                                             const std::vector<std::filesystem::path>& toolkit_dirs,
                                             const std::optional<std::vector<std::filesystem::path>>& allowed_roots = std::nullopt,
                                             const std::string& display_name = "");

// Throws IncludeRefused when `source`, after symbolic links are resolved, lies neither in its
// own folder nor under one of `allowed_roots` (a solution file replaced by a link to
// /etc/passwd: ako would read it and NVRTC's errors would quote it).
void check_source_location(const std::filesystem::path& source, const std::string& display_name,
                           const std::vector<std::filesystem::path>& allowed_roots);

}  // namespace ako::jit
