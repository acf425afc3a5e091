#pragma once
// RAII owners of the libgit2 objects ako uses: each frees with its own git_*_free.
// Only the git/ stage includes <git2.h>; other stages see value types (hygiene_report.hpp).
#include <git2.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace ako::git {

template <class T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;

using Repository = Owned<git_repository, git_repository_free>;
using Remote = Owned<git_remote, git_remote_free>;
using Reference = Owned<git_reference, git_reference_free>;
using Commit = Owned<git_commit, git_commit_free>;
using StatusList = Owned<git_status_list, git_status_list_free>;
using Revwalk = Owned<git_revwalk, git_revwalk_free>;
using Config = Owned<git_config, git_config_free>;

// git_buf is a value with its own dispose function.
struct Buf {
  git_buf buf = GIT_BUF_INIT;
  Buf() = default;
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() { git_buf_dispose(&buf); }
  std::string str() const { return buf.ptr ? std::string(buf.ptr, buf.size) : std::string(); }
};

// The repository holding `dir` (dir itself or a parent). Throws GitError naming dir and the
// fix when there is none; `option` is the command-line option that named dir (the fix says it).
Repository open_repository(const std::filesystem::path& dir, const std::string& option = "--root");

// The reference, or nullopt when it does not exist (other failures throw).
std::optional<Reference> lookup_reference(git_repository* repo, const std::string& name);
std::optional<Remote> lookup_remote(git_repository* repo, const std::string& name);
Commit lookup_commit(git_repository* repo, const git_oid& oid);

std::string oid_hex(const git_oid& oid);
std::string short_oid(const git_oid& oid);  // 7 hex digits, as git log --oneline
std::string commit_oneline(git_repository* repo, const git_oid& oid);  // "abc1234 summary"

}  // namespace ako::git
