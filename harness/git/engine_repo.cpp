#include "git/engine_repo.hpp"

#include <algorithm>

#include "git/handles.hpp"
#include "git/history.hpp"
#include "git/libgit2.hpp"
#include "git/worktree_status.hpp"

namespace ako::git {

namespace {

// "refs/remotes/origin/HEAD" -> "main" when it is a symbolic ref to refs/remotes/origin/main.
std::optional<std::string> remote_head_branch(git_repository* repo, const std::string& remote) {
  const auto ref = lookup_reference(repo, "refs/remotes/" + remote + "/HEAD");
  if (!ref || git_reference_type(ref->get()) != GIT_REFERENCE_SYMBOLIC) return std::nullopt;
  const std::string target = git_reference_symbolic_target(ref->get());
  const std::string prefix = "refs/remotes/" + remote + "/";
  if (target.rfind(prefix, 0) != 0) return std::nullopt;
  return target.substr(prefix.size());
}

// The checkout's top folder must be what the user named: a folder inside some other
// repository (ako's own harness/, say) is not an engine.
void require_checkout_top(const std::filesystem::path& dir, const std::filesystem::path& workdir,
                          const std::string& option) {
  std::error_code ec;
  if (std::filesystem::equivalent(dir, workdir, ec)) return;
  throw GitError(option + " " + dir.string() + ": not the top folder of a git checkout: it lies inside the repository " +
                 workdir.string() + "; pass " + option + " <the engine checkout's top folder>, e.g. ../sglang");
}

}  // namespace

EngineState read_engine_state(const std::filesystem::path& dir, const std::string& option) {
  if (!std::filesystem::is_directory(dir))
    throw GitError(option + " " + dir.string() + ": " +
                   (std::filesystem::exists(dir) ? "not a folder" : "no such folder") + "; pass " + option +
                   " <the engine checkout>, e.g. ../sglang");
  const Repository owner = open_repository(dir, option);
  git_repository* repo = owner.get();
  EngineState s;
  s.workdir = std::filesystem::path(git_repository_workdir(repo)).lexically_normal();
  if (s.workdir.has_filename() == false) s.workdir = s.workdir.parent_path();
  require_checkout_top(dir, s.workdir, option);

  git_reference* head = nullptr;
  const int rc = git_repository_head(&head, repo);
  if (rc == 0) {
    const Reference h(head);
    if (const git_oid* oid = git_reference_target(h.get())) s.head_oid = oid_hex(*oid);
    if (git_reference_is_branch(h.get())) s.head_branch = git_reference_shorthand(h.get());
  } else if (rc != GIT_EUNBORNBRANCH && rc != GIT_ENOTFOUND) {
    check(rc, "read HEAD of " + dir.string());
  }

  if (auto b = remote_head_branch(repo, "origin")) {
    s.default_branch = *b, s.default_origin = "refs/remotes/origin/HEAD";
  } else if (auto u = remote_head_branch(repo, "upstream")) {
    s.default_branch = *u, s.default_origin = "refs/remotes/upstream/HEAD";
  } else if (lookup_reference(repo, "refs/heads/main")) {
    s.default_branch = "main", s.default_origin = "a local main branch (no origin/HEAD)";
  } else {
    s.default_branch = "master", s.default_origin = "fallback (no origin/HEAD, no main)";
  }

  const WorktreeStatus st = read_worktree_status(repo);
  for (const auto* list : {&st.staged, &st.unstaged, &st.untracked, &st.conflicted})
    s.dirty.insert(s.dirty.end(), list->begin(), list->end());
  std::sort(s.dirty.begin(), s.dirty.end());
  s.dirty.erase(std::unique(s.dirty.begin(), s.dirty.end()), s.dirty.end());
  return s;
}

std::optional<std::string> read_blob_at(const std::filesystem::path& dir, const std::string& oid,
                                        const std::string& path) {
  const Repository owner = open_repository(dir);
  git_repository* repo = owner.get();
  git_oid id;
  if (git_oid_fromstr(&id, oid.c_str()) < 0) return std::nullopt;
  git_commit* raw_commit = nullptr;
  if (git_commit_lookup(&raw_commit, repo, &id) < 0) return std::nullopt;
  const Commit commit(raw_commit);
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit.get()) < 0) return std::nullopt;
  git_tree_entry* entry = nullptr;
  const int rc = git_tree_entry_bypath(&entry, tree, path.c_str());
  git_tree_free(tree);
  if (rc < 0) return std::nullopt;
  git_blob* blob = nullptr;
  const int brc = git_blob_lookup(&blob, repo, git_tree_entry_id(entry));
  git_tree_entry_free(entry);
  if (brc < 0) return std::nullopt;
  std::string text(static_cast<const char*>(git_blob_rawcontent(blob)), git_blob_rawsize(blob));
  git_blob_free(blob);
  return text;
}

bool switch_to_new_branch(const std::filesystem::path& dir, const std::string& name) {
  const Repository owner = open_repository(dir);
  git_repository* repo = owner.get();
  const std::string ref_name = "refs/heads/" + name;
  int valid = 0;
  check(git_reference_name_is_valid(&valid, ref_name.c_str()), "check the branch name " + name);
  if (!valid) throw GitError("'" + name + "' is not a valid branch name");
  git_oid head;
  check(git_reference_name_to_id(&head, repo, "HEAD"), "resolve HEAD");
  if (const auto existing = lookup_reference(repo, ref_name)) {
    const git_oid at = *git_reference_target(existing->get());
    if (!git_oid_equal(&at, &head))
      throw GitError("branch " + name + " already exists at " + commit_oneline(repo, at) +
                     ", not at HEAD " + short_oid(head) + "; fix: git branch -m " + name + " " + name +
                     "-old, or pass --branch <another name>");
    switch_to_branch(repo, ref_name, head);
    return false;
  }
  const Commit c = lookup_commit(repo, head);
  git_reference* created = nullptr;
  check(git_branch_create(&created, repo, name.c_str(), c.get(), 0), "create branch " + name);
  git_reference_free(created);
  switch_to_branch(repo, ref_name, head);
  return true;
}

}  // namespace ako::git
