// Recording an iteration through libgit2: what the commit holds, and that a process killed
// at any step leaves either the old state or the new one (never a log entry without its commit
// or a commit without its log entry), which recovery then completes or undoes.
#include <sys/wait.h>
#include <unistd.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "cpu/git/repo_fixture.hpp"
#include "iterate/commit_message.hpp"
#include "iterate/record.hpp"

namespace ako::iterate {
namespace {

using git::testing::contains;
using git::testing::write_text;
namespace fs = std::filesystem;

const std::string kOldLog = "# Iterations\n\n## Task demo\n\n### Iter 0 — base\n\n**Analysis.** typed by the user\n";
const std::string kNewLog = "# Iterations\n\n## Task demo\n\nNEW ENTRY\n";

class Record : public git::testing::RepoFixture {
 protected:
  void SetUp() override {
    RepoFixture::SetUp();
    write_text(author / "solution/demo/k.cuh", "// v0\n");
    write_text(author / ".gitignore", "*.log\nbuild/\n*.ncu-rep\n");
    commit(author, "ITERATIONS.md", "# Iterations\n", "workspace");
    git(author, "push -q origin main");
    git(work, "pull -q");
    git(work, "checkout -q -b opt/demo");
    // The iteration's own uncommitted work: the edited kernel and the user's Analysis.
    write_text(work / "solution/demo/k.cuh", "// v1: wider loads\n");
    write_text(work / "solution/demo/new_helper.cuh", "// helper\n");
    write_text(work / "ITERATIONS.md", kOldLog);
  }

  IterationFiles files(int iter = 1) {
    IterationFiles f;
    f.task = "demo";
    f.iter = iter;
    CommitFacts facts;
    facts.task = "demo";
    facts.iter = iter;
    facts.title = "wider loads";
    f.commit_message = commit_message(facts);
    f.log_markdown = kNewLog;
    f.summary_json = "{\"task\": \"demo\"}\n";
    f.result_json = "{\"schema\": \"ako.run/1\"}\n";
    f.ncu_json = "{\"kernel\": \"k\"}\n";
    return f;
  }

  std::string status() { return git(work, "status --porcelain --untracked-files=all"); }
  std::string log_text() { return read_file(work / "ITERATIONS.md"); }
  bool committed() { return contains(git(work, "log -1 --format=%s"), "[iter 1] wider loads"); }
  std::string temporaries() {
    std::string found;
    for (const auto& e : fs::recursive_directory_iterator(work))
      if (e.path().filename().string().starts_with(".ako-")) found += e.path().string() + "\n";
    return found;
  }
};

TEST_F(Record, TheCommitHoldsTheSolutionTheLogAndTheTrajectory) {
  const fs::path rep = dir / "scratch/ncu.ncu-rep";
  write_text(rep, "binary report");
  IterationFiles f = files();
  f.extra = {rep};
  const git::CommitMade made = record_iteration(work, f);

  EXPECT_EQ(rev(work, "HEAD"), made.oid);
  EXPECT_EQ(git(work, "log -1 --format=%B"), f.commit_message + "\n");
  const std::string files_in_commit = git(work, "show --name-status --format= HEAD");
  for (const char* want : {"M\tITERATIONS.md", "M\tsolution/demo/k.cuh", "A\tsolution/demo/new_helper.cuh",
                           "A\ttrajectory/demo/summary.json", "A\ttrajectory/demo/iter-1/solution/k.cuh",
                           "A\ttrajectory/demo/iter-1/solution/new_helper.cuh", "A\ttrajectory/demo/iter-1/result.json",
                           "A\ttrajectory/demo/iter-1/ncu.json"})
    EXPECT_TRUE(contains(files_in_commit, want)) << want << "\n" << files_in_commit;
  EXPECT_FALSE(contains(files_in_commit, "ncu-rep")) << "ignored by .gitignore: kept on disk only";
  EXPECT_EQ(made.skipped_ignored, std::vector<std::string>{"trajectory/demo/iter-1/ncu.ncu-rep"});
  EXPECT_EQ(read_file(work / "trajectory/demo/iter-1/ncu.ncu-rep"), "binary report");
  EXPECT_EQ(git(work, "show HEAD:trajectory/demo/iter-1/solution/k.cuh"), "// v1: wider loads\n");
  EXPECT_EQ(log_text(), kNewLog);
  EXPECT_EQ(status(), "") << "the worktree matches the commit";
  EXPECT_EQ(temporaries(), "");
  EXPECT_EQ(git(work, "rev-parse --abbrev-ref HEAD"), "opt/demo\n");
}

TEST_F(Record, AFailureBeforeTheCommitChangesNothing) {
  const std::string head = rev(work, "HEAD");
  EXPECT_THROW(record_iteration(work, files(), [](RecordStep s) {
    if (s == RecordStep::journaled) throw Error("disk full");
  }),
               Error);
  EXPECT_EQ(rev(work, "HEAD"), head);
  EXPECT_EQ(log_text(), kOldLog);
  EXPECT_EQ(temporaries(), "");
  EXPECT_FALSE(fs::exists(work / "trajectory"));
}

TEST_F(Record, AnExistingIterationFolderIsRefusedBeforeAnything) {
  write_text(work / "trajectory/demo/iter-1/stray.txt", "x");
  try {
    record_iteration(work, files());
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "iter-1 already exists")) << e.what();
  }
  EXPECT_EQ(log_text(), kOldLog);
}

// A child process records and is killed (_exit, no cleanup, no destructors) right after `step`.
class KilledAt : public Record, public ::testing::WithParamInterface<RecordStep> {};

TEST_P(KilledAt, LeavesOldOrNewStateAndRecoveryCompletesIt) {
  const RecordStep kill_at = GetParam();
  const std::string head_before = rev(work, "HEAD");
  const IterationFiles f = files();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      record_iteration(work, f, [&](RecordStep s) {
        if (s == kill_at) ::_exit(9);
      });
    } catch (...) {
    }
    ::_exit(0);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 9) << "the child was not killed at " << step_name(kill_at);

  // Right after the kill: never a half-written log, never a log entry without its commit.
  const std::string text = log_text();
  ASSERT_TRUE(text == kOldLog || text == kNewLog) << text;
  if (text == kNewLog) {
    EXPECT_TRUE(committed()) << "log entry without commit at " << step_name(kill_at);
  }
  const bool was_committed = committed();
  EXPECT_EQ(was_committed, kill_at >= RecordStep::committed);

  const auto did = recover_interrupted(work, "demo");
  EXPECT_EQ(temporaries(), "");
  if (was_committed) {
    EXPECT_EQ(log_text(), kNewLog);
    EXPECT_TRUE(fs::exists(work / "trajectory/demo/iter-1/result.json"));
    EXPECT_EQ(read_file(work / "trajectory/demo/summary.json"), f.summary_json);
    EXPECT_EQ(status(), "") << "after recovery from " << step_name(kill_at);
    if (kill_at < RecordStep::done) {
      ASSERT_EQ(did.size(), 1u);
      EXPECT_TRUE(contains(did[0], "finished recording iteration 1")) << did[0];
    }
  } else {
    EXPECT_EQ(rev(work, "HEAD"), head_before);
    EXPECT_EQ(log_text(), kOldLog) << "the user's uncommitted Analysis is untouched";
    EXPECT_FALSE(fs::exists(work / "trajectory/demo/iter-1"));
    EXPECT_EQ(status(), " M ITERATIONS.md\n M solution/demo/k.cuh\n?? solution/demo/new_helper.cuh\n");
    ASSERT_EQ(did.size(), 1u);
    // Then the same iteration records cleanly.
    record_iteration(work, f);
    EXPECT_TRUE(committed());
    EXPECT_EQ(status(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStep, KilledAt,
                         ::testing::Values(RecordStep::prepared, RecordStep::journaled, RecordStep::committed,
                                           RecordStep::renamed_iteration, RecordStep::renamed_summary,
                                           RecordStep::renamed_log, RecordStep::done),
                         [](const auto& info) { return std::string(step_name(info.param)); });

}  // namespace
}  // namespace ako::iterate
