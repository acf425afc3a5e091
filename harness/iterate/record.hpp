#pragma once
// Recording one iteration so that it happens entirely or not at all (TRAJECTORY.md, "Order of
// writes"): the new ITERATIONS.md, summary.json and iter-N/ folder are written as temporary
// files, a journal is written, the commit is made from those temporaries (the one atomic
// step: the branch ref moves or not), and only then are they renamed into place. Before the
// commit nothing the user sees has changed; after it, recovery finishes the renames.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "git/commit.hpp"
#include "iterate/trajectory.hpp"

namespace ako::iterate {

struct IterationFiles {
  std::string task;
  int iter = 0;
  std::string commit_message;               // from commit_message(); its body names task and iter
  std::string log_markdown;                 // the whole new ITERATIONS.md
  std::string summary_json;                 // the whole new summary.json
  std::string result_json;                  // the run (schema ako.run/1)
  std::optional<std::string> ncu_json;      // the parsed profile, when profiled
  std::vector<std::filesystem::path> extra; // files moved into iter-N/ (the .ncu-rep and its CSV)
};

// The steps in order; a test hook runs after each (to crash the process there).
enum class RecordStep { prepared, journaled, committed, renamed_iteration, renamed_summary, renamed_log, done };
const char* step_name(RecordStep s);
using StepHook = std::function<void(RecordStep)>;

// Writes, commits and puts everything in place. The commit stages solution/<task>/ from the
// worktree (the benched source) plus the new files. Throws ako::Error / GitError; on a throw
// before the commit, the temporaries are removed and nothing else has changed.
git::CommitMade record_iteration(const std::filesystem::path& root, const IterationFiles& files,
                                 const StepHook& hook = {});

// Finishes or undoes an interrupted record_iteration for `task`, whichever the commit says:
// journal present and HEAD is the journal's commit -> renames finished (missing files checked
// out from HEAD, the index entries reset to HEAD); otherwise temporaries removed. Returns what
// it did, one line per action (empty when there was nothing to do).
std::vector<std::string> recover_interrupted(const std::filesystem::path& root, const std::string& task);

// Temporary names (also used by the tests).
inline constexpr const char* kTempPrefix = ".ako-tmp-";
inline constexpr const char* kJournalName = ".ako-pending.json";

}  // namespace ako::iterate
