#include "git/handles.hpp"

#include "git/libgit2.hpp"

namespace ako::git {

Repository open_repository(const std::filesystem::path& dir, const std::string& option) {
  ensure_libgit2();
  git_repository* raw = nullptr;
  const int rc = git_repository_open_ext(&raw, dir.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND)
    throw GitError("not a git repository: " + dir.string() + " (nor any parent); fix: git clone <upstream-url> " +
                   dir.string() + ", or pass " + option + " <repository>");
  check(rc, "open repository " + dir.string());
  Repository repo(raw);
  if (git_repository_is_bare(raw))
    throw GitError("bare repository: " + dir.string() + " has no worktree to check; pass " + option + " <a clone>");
  return repo;
}

std::optional<Reference> lookup_reference(git_repository* repo, const std::string& name) {
  git_reference* raw = nullptr;
  const int rc = git_reference_lookup(&raw, repo, name.c_str());
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check(rc, "look up " + name);
  return Reference(raw);
}

std::optional<Remote> lookup_remote(git_repository* repo, const std::string& name) {
  git_remote* raw = nullptr;
  const int rc = git_remote_lookup(&raw, repo, name.c_str());
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check(rc, "look up remote " + name);
  return Remote(raw);
}

Commit lookup_commit(git_repository* repo, const git_oid& oid) {
  git_commit* raw = nullptr;
  check(git_commit_lookup(&raw, repo, &oid), "look up commit " + oid_hex(oid));
  return Commit(raw);
}

std::string oid_hex(const git_oid& oid) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

std::string short_oid(const git_oid& oid) { return oid_hex(oid).substr(0, 7); }

std::string commit_oneline(git_repository* repo, const git_oid& oid) {
  const Commit c = lookup_commit(repo, oid);
  const char* summary = git_commit_summary(c.get());
  return short_oid(oid) + " " + (summary ? summary : "");
}

}  // namespace ako::git
