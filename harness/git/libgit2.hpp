#pragma once
// The libgit2 library, started once per process, and its errors turned into ako errors.
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace ako::git {

// A libgit2 call failed for a reason outside ako's rules (not a repository, fetch failed,
// corrupt object...): an environment error, exit 2 in the CLI.
struct GitError : Error {
  using Error::Error;
};

// Starts libgit2 on first use; shut down at process exit. Every wrapper calls it, so
// callers never have to.
void ensure_libgit2();

// Throws GitError("<what>: <libgit2's last message>") when rc < 0.
void check(int rc, std::string_view what);

// libgit2's last error message, or "unknown error".
std::string last_error_message();

}  // namespace ako::git
