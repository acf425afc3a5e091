#include "git/commit.hpp"

#include "git/handles.hpp"
#include "git/libgit2.hpp"

namespace ako::git {

namespace {

using Index = Owned<git_index, git_index_free>;
using Tree = Owned<git_tree, git_tree_free>;
using Signature = Owned<git_signature, git_signature_free>;
using Object = Owned<git_object, git_object_free>;
using Diff = Owned<git_diff, git_diff_free>;
using DiffStats = Owned<git_diff_stats, git_diff_stats_free>;

// git_strarray view of strings that outlive it.
struct PathSpec {
  std::vector<char*> ptrs;
  git_strarray array{};
  explicit PathSpec(const std::vector<std::string>& paths) {
    for (const auto& p : paths) ptrs.push_back(const_cast<char*>(p.c_str()));
    array.strings = ptrs.data();
    array.count = ptrs.size();
  }
};

Index repository_index(git_repository* repo) {
  git_index* raw = nullptr;
  check(git_repository_index(&raw, repo), "open the index");
  Index idx(raw);
  check(git_index_read(raw, 0), "read the index");
  return idx;
}

Object revparse(git_repository* repo, const std::string& spec) {
  git_object* raw = nullptr;
  check(git_revparse_single(&raw, repo, spec.c_str()), "resolve " + spec);
  return Object(raw);
}

Signature signature(git_repository* repo) {
  git_signature* raw = nullptr;
  // No user.name/user.email configured (a fresh GPU machine): still commit, as ako.
  if (git_signature_default(&raw, repo) < 0) check(git_signature_now(&raw, "ako", "ako@localhost"), "make a signature");
  return Signature(raw);
}

bool is_ignored(git_repository* repo, const std::string& path) {
  int ignored = 0;
  check(git_ignore_path_is_ignored(&ignored, repo, path.c_str()), "check ignore rules for " + path);
  return ignored == 1;
}

Diff diff_against_head(git_repository* repo, const std::string& pathspec) {
  const Object tree = revparse(repo, "HEAD^{tree}");
  git_diff_options o = GIT_DIFF_OPTIONS_INIT;
  o.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_SHOW_UNTRACKED_CONTENT;
  const std::vector<std::string> paths{pathspec};
  PathSpec ps(paths);
  o.pathspec = ps.array;
  git_diff* raw = nullptr;
  check(git_diff_tree_to_workdir_with_index(&raw, repo, reinterpret_cast<git_tree*>(tree.get()), &o),
        "diff HEAD against the worktree for " + pathspec);
  return Diff(raw);
}

}  // namespace

CommitMade commit_on_head(const std::filesystem::path& root, const CommitRequest& request) {
  const Repository repo_owner = open_repository(root);
  git_repository* repo = repo_owner.get();
  if (git_repository_head_unborn(repo) == 1 || git_repository_head_detached(repo) == 1)
    throw GitError("cannot commit in " + root.string() + ": HEAD is not a branch with commits");
  CommitMade made;
  const Index idx = repository_index(repo);
  if (!request.worktree_paths.empty()) {
    PathSpec ps(request.worktree_paths);
    check(git_index_add_all(idx.get(), &ps.array, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr), "stage the worktree paths");
    check(git_index_update_all(idx.get(), &ps.array, nullptr, nullptr), "stage deletions in the worktree paths");
  }
  for (const auto& f : request.buffered) {
    if (is_ignored(repo, f.path)) {
      made.skipped_ignored.push_back(f.path);
      continue;
    }
    git_index_entry e{};
    e.mode = GIT_FILEMODE_BLOB;
    e.path = f.path.c_str();
    check(git_index_add_from_buffer(idx.get(), &e, f.content.data(), f.content.size()), "stage " + f.path);
  }
  git_oid tree_oid;
  check(git_index_write_tree(&tree_oid, idx.get()), "write the tree");
  git_tree* tree_raw = nullptr;
  check(git_tree_lookup(&tree_raw, repo, &tree_oid), "look up the new tree");
  const Tree tree(tree_raw);
  const Object parent = revparse(repo, "HEAD^{commit}");
  const git_commit* parents[] = {reinterpret_cast<git_commit*>(parent.get())};
  const Signature sig = signature(repo);
  git_oid oid;
  check(git_commit_create(&oid, repo, "HEAD", sig.get(), sig.get(), nullptr, request.message.c_str(), tree.get(), 1,
                          parents),
        "commit");
  // After the ref moved: a crash here leaves a stale index, which the caller's recovery resets.
  check(git_index_write(idx.get()), "write the index");
  made.oid = oid_hex(oid);
  return made;
}

void checkout_paths(const std::filesystem::path& root, const std::string& commit,
                    const std::vector<std::string>& pathspecs) {
  const Repository repo_owner = open_repository(root);
  git_repository* repo = repo_owner.get();
  const Object target = revparse(repo, (commit.empty() ? std::string("HEAD") : commit) + "^{commit}");
  PathSpec ps(pathspecs);
  git_checkout_options o = GIT_CHECKOUT_OPTIONS_INIT;
  o.checkout_strategy = GIT_CHECKOUT_FORCE;
  o.paths = ps.array;
  check(git_checkout_tree(repo, target.get(), &o), "check out " + (commit.empty() ? "HEAD" : commit.substr(0, 7)));
  // The index entries of these paths now name the target's blobs, whatever was staged before.
  check(git_reset_default(repo, target.get(), &ps.array), "reset the index entries");
}

void reset_index_to_head(const std::filesystem::path& root, const std::vector<std::string>& pathspecs) {
  const Repository repo_owner = open_repository(root);
  const Object head = revparse(repo_owner.get(), "HEAD^{commit}");
  PathSpec ps(pathspecs);
  check(git_reset_default(repo_owner.get(), head.get(), &ps.array), "reset the index entries to HEAD");
}

std::string diffstat_against_head(const std::filesystem::path& root, const std::string& pathspec) {
  const Repository repo_owner = open_repository(root);
  const Diff diff = diff_against_head(repo_owner.get(), pathspec);
  if (git_diff_num_deltas(diff.get()) == 0) return "";
  git_diff_stats* raw = nullptr;
  check(git_diff_get_stats(&raw, diff.get()), "diff statistics");
  const DiffStats stats(raw);
  Buf buf;
  check(git_diff_stats_to_buf(&buf.buf, stats.get(), GIT_DIFF_STATS_FULL, 80), "format the diff statistics");
  return buf.str();
}

std::vector<std::string> changed_paths(const std::filesystem::path& root, const std::string& pathspec) {
  const Repository repo_owner = open_repository(root);
  const Diff diff = diff_against_head(repo_owner.get(), pathspec);
  std::vector<std::string> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    out.push_back(d->new_file.path ? d->new_file.path : d->old_file.path);
  }
  return out;
}

std::optional<std::string> find_commit(const std::filesystem::path& root,
                                       const std::function<bool(const std::string& message)>& match, int limit) {
  const Repository repo_owner = open_repository(root);
  git_repository* repo = repo_owner.get();
  if (git_repository_head_unborn(repo) == 1) return std::nullopt;
  git_revwalk* raw = nullptr;
  check(git_revwalk_new(&raw, repo), "walk the history");
  const Revwalk walk(raw);
  check(git_revwalk_sorting(raw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME), "sort the history");
  check(git_revwalk_push_head(raw), "walk from HEAD");
  git_oid oid;
  for (int n = 0; n < limit && git_revwalk_next(&oid, raw) == 0; ++n) {
    const Commit c = lookup_commit(repo, oid);
    const char* message = git_commit_message(c.get());
    if (message && match(message)) return oid_hex(oid);
  }
  return std::nullopt;
}

std::optional<HeadCommit> head_commit(const std::filesystem::path& root) {
  const Repository repo_owner = open_repository(root);
  git_repository* repo = repo_owner.get();
  if (git_repository_head_unborn(repo) == 1) return std::nullopt;
  const Object head = revparse(repo, "HEAD^{commit}");
  const char* message = git_commit_message(reinterpret_cast<git_commit*>(head.get()));
  return HeadCommit{oid_hex(*git_object_id(head.get())), message ? message : ""};
}

}  // namespace ako::git
