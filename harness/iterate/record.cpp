#include "iterate/record.hpp"

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "iterate/commit_message.hpp"

namespace ako::iterate {

namespace fs = std::filesystem;

namespace {

// Where each piece lives while pending, and where it ends up.
struct Layout {
  TrajectoryPaths p;
  int iter;
  fs::path temp_log() const { return p.root / (std::string(kTempPrefix) + "ITERATIONS.md"); }
  fs::path final_log() const { return p.root / "ITERATIONS.md"; }
  fs::path temp_summary() const { return p.dir() / (std::string(kTempPrefix) + "summary.json"); }
  fs::path temp_iter() const { return p.dir() / (std::string(kTempPrefix) + "iter-" + std::to_string(iter)); }
  fs::path journal() const { return p.dir() / kJournalName; }
};

void write_plain(const fs::path& file, const std::string& content) {
  fs::create_directories(file.parent_path());
  write_file_atomically(file, content);
}

// Copies solution/<task>/ (the benched source) without anything git ignores being special:
// every regular file, recursively.
void copy_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  if (!fs::exists(from)) return;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// Moves a file, across filesystems if it has to.
void move_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (!ec) return;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::remove(from);
}

// A temporary of an iterate (kTempPrefix), or the temporary of an atomic write of one of them or
// of the journal (common/atomic_file.hpp: ".<name>.tmp.<pid>"), which a kill can leave.
bool is_temporary(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.starts_with(kTempPrefix) || name.starts_with(std::string(".") + kTempPrefix) ||
         name.starts_with(std::string(".") + kJournalName + ".tmp.");
}

// The temporaries at the root (the log's) and in the task's trajectory folder.
std::vector<fs::path> temporaries(const Layout& l) {
  std::vector<fs::path> out;
  for (const fs::path& dir : {l.p.root, l.p.dir()}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (is_temporary(e.path()) && (dir != l.p.root || e.path().filename().string().find("ITERATIONS.md") != std::string::npos))
        out.push_back(e.path());
  }
  return out;
}

void remove_temporaries(const Layout& l) {
  std::error_code ec;
  for (const fs::path& t : temporaries(l)) fs::remove_all(t, ec);
  // Folders made only for the temporaries go too (fs::remove leaves non-empty ones alone).
  fs::remove(l.p.dir(), ec);
  fs::remove(l.p.root / "trajectory", ec);
}

// Every file under dir, as (repository-relative final path, content).
void buffer_tree(const fs::path& dir, const std::string& rel_final, std::vector<git::BufferedFile>& out) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    out.push_back({rel_final + "/" + fs::relative(e.path(), dir).generic_string(), read_file(e.path())});
  }
}

// Renames a pending piece into place unless it already is (idempotent for recovery).
void put_in_place(const fs::path& temp, const fs::path& final) {
  if (!fs::exists(temp)) return;
  if (fs::is_directory(temp) && fs::exists(final)) fs::remove_all(final);
  fs::rename(temp, final);
}

void finish(const Layout& l) {
  put_in_place(l.temp_iter(), l.p.iter_dir(l.iter));
  put_in_place(l.temp_summary(), l.p.summary());
  put_in_place(l.temp_log(), l.final_log());
}

bool head_is(const fs::path& root, const std::string& task, int iter) {
  const auto head = git::head_commit(root);
  if (!head) return false;
  const CommitKeys k = parse_commit_keys(head->message);
  return k.task == task && k.iter == iter;
}

}  // namespace

const char* step_name(RecordStep s) {
  switch (s) {
    case RecordStep::prepared: return "prepared";
    case RecordStep::journaled: return "journaled";
    case RecordStep::committed: return "committed";
    case RecordStep::renamed_iteration: return "renamed_iteration";
    case RecordStep::renamed_summary: return "renamed_summary";
    case RecordStep::renamed_log: return "renamed_log";
    case RecordStep::done: return "done";
  }
  return "?";
}

git::CommitMade record_iteration(const fs::path& root, const IterationFiles& f, const StepHook& hook) {
  const Layout l{{root, f.task}, f.iter};
  auto step = [&](RecordStep s) {
    if (hook) hook(s);
  };
  if (fs::exists(l.p.iter_dir(f.iter)))
    throw Error(l.p.iter_dir(f.iter).string() + " already exists, but summary.json does not list iteration " +
                std::to_string(f.iter) + "; move it out of the way (it is not part of any recorded iteration)");
  if (fs::exists(l.journal()))
    throw Error(l.journal().string() + " exists: an earlier iterate was interrupted; run ako iterate again to recover");

  git::CommitMade made;
  try {
    // 1. Everything new, as temporaries: nothing the user sees changes yet.
    remove_temporaries(l);
    copy_tree(root / l.p.rel_solution(), l.temp_iter() / "solution");
    write_plain(l.temp_iter() / "result.json", f.result_json);
    if (f.ncu_json) write_plain(l.temp_iter() / "ncu.json", *f.ncu_json);
    for (const auto& x : f.extra)
      if (fs::exists(x)) move_file(x, l.temp_iter() / x.filename());
    write_plain(l.temp_summary(), f.summary_json);
    write_plain(l.temp_log(), f.log_markdown);
    step(RecordStep::prepared);

    // 2. The journal says which commit would make these final.
    write_plain(l.journal(), nlohmann::json{{"task", f.task}, {"iter", f.iter}}.dump() + "\n");
    step(RecordStep::journaled);

    // 3. The commit, from the temporaries' contents under their final names.
    git::CommitRequest req;
    req.worktree_paths = {l.p.rel_solution()};
    req.buffered.push_back({"ITERATIONS.md", f.log_markdown});
    req.buffered.push_back({l.p.rel_summary(), f.summary_json});
    buffer_tree(l.temp_iter(), l.p.rel_iter(f.iter), req.buffered);
    req.message = f.commit_message;
    made = git::commit_on_head(root, req);
  } catch (...) {
    // Before (or in) the commit: undo, unless the ref did move (then recovery rolls forward).
    bool committed = false;
    try {
      committed = head_is(root, f.task, f.iter);
    } catch (const std::exception&) {
    }
    if (!committed) {
      std::error_code ec;
      fs::remove(l.journal(), ec);
      remove_temporaries(l);
    }
    throw;
  }
  step(RecordStep::committed);

  // 4. Into place, the iteration folder first and the log last: each rename is atomic.
  put_in_place(l.temp_iter(), l.p.iter_dir(f.iter));
  step(RecordStep::renamed_iteration);
  put_in_place(l.temp_summary(), l.p.summary());
  step(RecordStep::renamed_summary);
  put_in_place(l.temp_log(), l.final_log());
  step(RecordStep::renamed_log);
  fs::remove(l.journal());
  step(RecordStep::done);
  return made;
}

std::vector<std::string> recover_interrupted(const fs::path& root, const std::string& task) {
  std::vector<std::string> did;
  const TrajectoryPaths p{root, task};
  const fs::path journal = p.dir() / kJournalName;
  if (!fs::exists(journal)) {
    // Interrupted while writing temporaries, before the journal: nothing was committed.
    const Layout l{p, 0};
    if (!temporaries(l).empty()) {
      remove_temporaries(l);
      did.push_back("removed the temporary files of an iterate that stopped before committing");
    }
    return did;
  }
  int iter = -1;
  try {
    const auto j = nlohmann::json::parse(read_file(journal));
    iter = j.at("iter").get<int>();
  } catch (const std::exception& e) {
    throw Error(journal.string() + " is unreadable (" + e.what() + "); delete it and any " + kTempPrefix +
                "* files beside it, then check `git status`");
  }
  const Layout l{p, iter};
  if (head_is(root, task, iter)) {
    finish(l);
    // Files the commit holds but the worktree lacks come from HEAD; the index is reset to HEAD
    // for these paths (the commit may have landed before the index was written).
    git::checkout_paths(root, "", {"ITERATIONS.md", p.rel_dir()});
    git::reset_index_to_head(root, {p.rel_solution()});  // the worktree's solution stays as it is
    did.push_back("finished recording iteration " + std::to_string(iter) +
                  " (its commit was made; the files were put in place)");
  } else {
    did.push_back("undid the unfinished iteration " + std::to_string(iter) + " (it was never committed)");
  }
  fs::remove(journal);
  remove_temporaries(l);
  return did;
}

}  // namespace ako::iterate
