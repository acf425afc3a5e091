#include "git/worktree_status.hpp"

#include "git/handles.hpp"
#include "git/libgit2.hpp"

namespace ako::git {

namespace {

constexpr unsigned kStaged = GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_INDEX_DELETED |
                             GIT_STATUS_INDEX_RENAMED | GIT_STATUS_INDEX_TYPECHANGE;
constexpr unsigned kUnstaged =
    GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_RENAMED | GIT_STATUS_WT_TYPECHANGE;

const char* entry_path(const git_status_entry* e) {
  if (e->index_to_workdir && e->index_to_workdir->new_file.path) return e->index_to_workdir->new_file.path;
  if (e->head_to_index && e->head_to_index->new_file.path) return e->head_to_index->new_file.path;
  return "?";
}

std::string count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Stashing keeps the work and leaves the tree clean; it is the one command that fixes every kind.
constexpr const char* kStashFix = "git stash push --include-untracked  (or commit the work first)";

}  // namespace

WorktreeStatus read_worktree_status(git_repository* repo) {
  git_status_options opts = GIT_STATUS_OPTIONS_INIT;
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  // Untracked files count and are listed one by one; ignored files are left out entirely.
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
               GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX | GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;
  git_status_list* raw = nullptr;
  check(git_status_list_new(&raw, repo, &opts), "read the worktree status");
  const StatusList list(raw);
  WorktreeStatus s;
  for (size_t i = 0, n = git_status_list_entrycount(raw); i < n; ++i) {
    const git_status_entry* e = git_status_byindex(raw, i);
    const std::string path = entry_path(e);
    if (e->status & GIT_STATUS_CONFLICTED) s.conflicted.push_back(path);
    if (e->status & kStaged) s.staged.push_back(path);
    if (e->status & kUnstaged) s.unstaged.push_back(path);
    if (e->status & GIT_STATUS_WT_NEW) s.untracked.push_back(path);
  }
  return s;
}

std::vector<Finding> worktree_findings(const WorktreeStatus& s) {
  std::vector<Finding> out;
  if (!s.conflicted.empty())
    out.push_back({Problem::conflicts, count(s.conflicted.size(), "unmerged path", "unmerged paths") +
                                           " (a merge or rebase in progress)",
                   s.conflicted, "git merge --abort  (or resolve, then git add and commit)"});
  if (!s.staged.empty())
    out.push_back({Problem::staged_changes, count(s.staged.size(), "staged change", "staged changes") +
                                                " not committed", s.staged, kStashFix});
  if (!s.unstaged.empty())
    out.push_back({Problem::unstaged_changes, count(s.unstaged.size(), "modified tracked file", "modified tracked files") +
                                                  " (unstaged)", s.unstaged, kStashFix});
  if (!s.untracked.empty())
    out.push_back({Problem::untracked_files, count(s.untracked.size(), "untracked file", "untracked files") +
                                                 " (not ignored)", s.untracked,
                   "git stash push --include-untracked  (or add them to .gitignore, or delete them)"});
  return out;
}

}  // namespace ako::git
