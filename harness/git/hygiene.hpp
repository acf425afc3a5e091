#pragma once
// The AKO preflight (SGLang's ensure_ako4all_clean.sh) through libgit2: upstream remote, fetch,
// default branch, clean worktree, HEAD in sync with upstream/<default>. `ako doctor` prints the
// report; `ako iterate` and `ako port` refuse to start unless it is clean.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "git/hygiene_report.hpp"

namespace ako::git {

struct HygieneOptions {
  std::filesystem::path root;   // the repository (or a folder inside it)
  std::string upstream_url;     // used only when the upstream remote is missing; else ako.upstreamUrl, else origin's URL
  std::string default_branch;   // empty: ako.defaultBranch config, else upstream/HEAD, else main
  bool fast_forward = false;    // when HEAD is merely behind and the tree is clean, fast-forward it
};

// Creates the upstream remote when missing (a repair, reported in the facts) and fetches it;
// everything else is only read unless fast_forward is set. Refusals are findings in the report;
// throws GitError for what stops the check itself (not a repository, fetch failed, upstream
// lacks the default branch).
HygieneReport check_hygiene(const HygieneOptions& options);

// A refusal outside the check (e.g. creating the iteration branch), with its finding.
struct Refusal : std::runtime_error {
  explicit Refusal(Finding f) : std::runtime_error(f.message), finding(std::move(f)) {}
  Finding finding;
};

struct IterationBranch {
  std::string name;  // opt/<task>
  std::string oid;   // where it points
  bool created = false;
};

// `opt/<task>` at `start_point` (a hex oid, normally HygieneReport::facts.start_point), checked
// out. An existing branch at the start point is reused; one pointing elsewhere is refused
// (Refusal, with the fix) unless reuse_existing, which checks it out as it is.
IterationBranch create_iteration_branch(const std::filesystem::path& root, const std::string& task,
                                        const std::string& start_point, bool reuse_existing = false);

// Undoes create_iteration_branch after a failure, so that the user is left where they were:
// `previous` (a branch name) is checked out again and, when `made` was created by that call,
// it is deleted. Nothing is undone when the iteration branch has moved since (a commit was
// made on it: it is kept, and HEAD stays on it); returns whether HEAD went back.
bool leave_iteration_branch(const std::filesystem::path& root, const std::string& previous,
                            const IterationBranch& made);

}  // namespace ako::git
