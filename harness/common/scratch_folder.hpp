#pragma once
// The scratch folders ako makes under $TMPDIR, `ako-<command>-<pid>` (worker jobs and logs,
// sanitizer reports, the iterate profile), and their removal when a killed ako left them.
//
// Each folder holds a mark, the file `.ako-owner`, which the process that made it keeps
// flock'ed (exclusive) for as long as it uses the folder; the lock ends with the process, however
// it ends. When done, the process removes the mark, and the folder too unless it keeps it on
// purpose (sanitizer reports, a failed profile's logs: unmarked, they are never swept). So a
// folder whose mark no process holds was left by a killed ako: the next `ako run`, `tune`,
// `iterate` or `gate` sweeps it (sweep_orphaned_scratch), and never a live run's (its mark is
// held) nor one without a mark (kept on purpose, or made by an older ako).
#include <filesystem>
#include <string>
#include <vector>

namespace ako {

inline constexpr const char* kScratchMark = ".ako-owner";

class ScratchFolder {
 public:
  // Creates `dir` (and its parents) and marks it as this process's. Throws ako::Error naming the
  // folder when it cannot be made.
  explicit ScratchFolder(std::filesystem::path dir);
  // Removes the mark, then the folder when it is empty; whatever the folder holds stays (the
  // caller removes it, or keeps it on purpose).
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
  int fd_ = -1;   // the mark, flock'ed
};

// This process's scratch folder for `command` (run, tune, iterate, sanitize): $TMPDIR/ako-<command>-<pid>,
// the name is_scratch_name knows; with `part` >= 0, $TMPDIR/ako-<command>-<pid>-<part>: one of
// several of the process's at once (the lanes of `ako tune --gpus`, one folder each).
std::filesystem::path scratch_path(const std::string& command, int part = -1);

// Whether `name` is a scratch folder's: ako-run-N, ako-tune-N, ako-iterate-N, ako-sanitize-N,
// each optionally with a part (ako-tune-N-P), and the same with ".swept", a sweep's own name for
// one it is removing.
bool is_scratch_name(const std::string& name);

// Removes the scratch folders under `tmp` (owned by this user) whose mark no process holds;
// returns them. Never throws: a folder it cannot take or remove is left as it is.
std::vector<std::filesystem::path> sweep_orphaned_scratch(const std::filesystem::path& tmp);

// The sweep under the system's temporary folder, said on stderr in one line when it removed any.
void sweep_orphaned_scratch_and_say();

}  // namespace ako
