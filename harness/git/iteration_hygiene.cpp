#include "git/iteration_hygiene.hpp"

#include <algorithm>

#include "git/handles.hpp"
#include "git/worktree_status.hpp"

namespace ako::git {

namespace {

bool is_worktree_problem(Problem p) {
  return p == Problem::staged_changes || p == Problem::unstaged_changes || p == Problem::untracked_files ||
         p == Problem::conflicts;
}

void drop_allowed(std::vector<std::string>& paths, const std::vector<std::string>& allowed) {
  std::erase_if(paths, [&](const std::string& p) {
    return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return path_is_under(p, a); });
  });
}

}  // namespace

bool path_is_under(const std::string& path, const std::string& allowed) {
  std::string a = allowed;
  while (a.ends_with('/')) a.pop_back();
  return path == a || (path.size() > a.size() && path.starts_with(a) && path[a.size()] == '/');
}

HygieneReport check_hygiene_allowing(const HygieneOptions& options, const std::vector<std::string>& allowed) {
  HygieneReport report = check_hygiene(options);
  std::erase_if(report.findings, [](const Finding& f) { return is_worktree_problem(f.problem); });
  const Repository repo = open_repository(options.root);
  WorktreeStatus status = read_worktree_status(repo.get());
  drop_allowed(status.staged, allowed);
  drop_allowed(status.unstaged, allowed);
  drop_allowed(status.untracked, allowed);  // unmerged paths always refuse: a merge is half done
  std::vector<Finding> worktree = worktree_findings(status);
  report.findings.insert(report.findings.begin(), worktree.begin(), worktree.end());
  return report;
}

}  // namespace ako::git
