#include "git/hygiene_report.hpp"

#include <algorithm>

namespace ako::git {

std::string to_string(Problem p) {
  switch (p) {
    case Problem::staged_changes: return "staged-changes";
    case Problem::unstaged_changes: return "unstaged-changes";
    case Problem::untracked_files: return "untracked-files";
    case Problem::conflicts: return "conflicts";
    case Problem::detached_head: return "detached-head";
    case Problem::wrong_branch: return "wrong-branch";
    case Problem::no_local_branch: return "no-local-branch";
    case Problem::behind: return "behind";
    case Problem::ahead: return "ahead";
    case Problem::diverged: return "diverged";
    case Problem::stale_iteration_branch: return "stale-iteration-branch";
    case Problem::branch_exists: return "branch-exists";
  }
  return "unknown";
}

std::string to_string(BranchSource s) {
  switch (s) {
    case BranchSource::configured: return "configured";
    case BranchSource::upstream_head: return "upstream/HEAD";
    case BranchSource::fallback_main: return "fallback";
  }
  return "unknown";
}

bool HygieneReport::has(Problem p) const {
  return std::any_of(findings.begin(), findings.end(), [p](const Finding& f) { return f.problem == p; });
}

}  // namespace ako::git
