#pragma once
// What the hygiene check found: plain values (no libgit2 types), so the CLI, iterate and port
// can print, test and serialise them.
#include <optional>
#include <string>
#include <vector>

namespace ako::git {

enum class Problem {
  staged_changes,     // index differs from HEAD
  unstaged_changes,   // worktree differs from the index (tracked files)
  untracked_files,    // not ignored, not tracked
  conflicts,          // unmerged index entries
  detached_head,      // HEAD names a commit, not a branch
  wrong_branch,       // on a branch that is neither the default nor an iteration branch
  no_local_branch,    // the default branch does not exist locally
  behind,             // HEAD is an ancestor of upstream/<default>: a fast-forward fixes it
  ahead,              // local commits upstream does not have
  diverged,           // both sides have commits the other lacks (e.g. rewritten upstream history)
  stale_iteration_branch,  // opt/<task> does not contain upstream/<default>
  branch_exists,      // opt/<task> exists and points elsewhere than the start point
};

std::string to_string(Problem p);  // "staged_changes" -> "staged-changes"

// One refusal: what is wrong, which paths or commits, and the command that fixes it.
struct Finding {
  Problem problem;
  std::string message;            // one sentence, e.g. "2 untracked files"
  std::vector<std::string> items; // offending paths, or commits as "abc1234 summary"
  std::string fix;                // the exact command(s) to run
};

// Where the default branch came from, in the order of preference.
enum class BranchSource { configured, upstream_head, fallback_main };
std::string to_string(BranchSource s);

struct HygieneFacts {
  std::string repository;          // the worktree root
  std::string upstream_url;
  std::string upstream_url_source; // "existing remote", "--upstream-url", "ako.upstreamUrl config", "origin's URL"
  bool upstream_created = false;   // the upstream remote was missing and ako added it
  std::string default_branch;
  BranchSource default_branch_source = BranchSource::fallback_main;
  std::string default_branch_origin;  // detail, e.g. "--default-branch" or "refs/remotes/upstream/HEAD"
  std::string start_point;         // upstream/<default>'s oid (hex): where iteration branches start
  std::string head_branch;         // short name, empty when detached
  std::string head_oid;            // hex; empty when HEAD is unborn
  std::vector<std::string> iteration_commits;  // on opt/<task>: the commits since the start point
  std::optional<std::string> fast_forwarded_from;  // set when --ff moved the branch (old oid)
};

struct HygieneReport {
  HygieneFacts facts;
  std::vector<Finding> findings;
  bool clean() const { return findings.empty(); }
  bool has(Problem p) const;
};

}  // namespace ako::git
