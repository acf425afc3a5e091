#include "git/libgit2.hpp"

#include <git2.h>

namespace ako::git {

namespace {
// git_libgit2_init/shutdown are reference counted; one process-wide owner keeps the
// library up from the first git call to exit.
struct Libgit2Session {
  Libgit2Session() { git_libgit2_init(); }
  ~Libgit2Session() { git_libgit2_shutdown(); }
};
}  // namespace

void ensure_libgit2() { static const Libgit2Session session; }

std::string last_error_message() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown error";
}

void check(int rc, std::string_view what) {
  if (rc < 0) throw GitError(std::string(what) + ": " + last_error_message());
}

}  // namespace ako::git
