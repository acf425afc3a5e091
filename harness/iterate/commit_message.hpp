#pragma once
// The commit of one iteration: a subject people read in `git log --oneline` ("[iter 3] wider
// vectors") and a body of "key: value" lines that scripts and `ako` itself read back.
#include <map>
#include <optional>
#include <string>

namespace ako::iterate {

enum class CommitKind { baseline, iteration, restore };

struct CommitFacts {
  CommitKind kind = CommitKind::iteration;
  std::string task;
  int iter = 0;
  std::string title;
  int restored_from = -1;                  // restore: the iteration brought back
  std::string gpu;                         // device name, "none" when nothing ran on a GPU
  std::string correctness;                 // correct / incorrect / failed
  std::string status;                      // baseline / improved / ...
  std::optional<double> speedup_vs_baseline, speedup_vs_reference, runtime_us;
  int best = 0;                            // the best iteration after this one
  std::string cases;                       // "40 correct, 0 incorrect, 0 failed, 0 skipped"
  std::string ncu;                         // one line: what the profile found, or why there is none
  std::string hypothesis;
};

// "[baseline] T", "[iter N] T" or "[final] Restore iter-K (1.23x vs baseline)"; then a blank
// line and the keys task, iter, gpu, correctness, status, speedup_vs_baseline,
// speedup_vs_reference, runtime_us, best, cases, ncu, hypothesis (null for what was not measured).
std::string commit_message(const CommitFacts& facts);

struct CommitKeys {
  std::string task;
  int iter = -1;
  std::map<std::string, std::string> keys;  // every "key: value" line of the body
};

// The keys of a message commit_message wrote; empty for any other commit.
CommitKeys parse_commit_keys(const std::string& message);

}  // namespace ako::iterate
