// `ako iterate` stopped by SIGINT, SIGTERM or SIGKILL at 50 random moments of its real run (the
// binary, on a throw-away workspace with a bare upstream, recording results made elsewhere with
// --result-json, so no GPU is needed: hygiene, the branch, the journal, the commit, the renames).
// After every kill: no process it started is left; ITERATIONS.md and trajectory/demo/ are each
// old or new and whole (every iteration the summary lists has its folder and its commit, every
// entry of the log is in the summary); nothing recorded is ever lost. The next call finishes or
// undoes what the kill interrupted (and says so); after the last, one uninterrupted call leaves
// a clean worktree where the log, the summary and the commits agree.
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <random>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "cpu/git/repo_fixture.hpp"
#include "cpu/kill_support.hpp"
#include "iterate/log_markdown.hpp"
#include "iterate/trajectory.hpp"
#include "results_fixture.hpp"

namespace ako::iterate {
namespace {

using git::testing::write_text;
using testing::make_run;
using testsupport::Ended;
using testsupport::KilledProcess;
namespace fs = std::filesystem;

constexpr int kKills = 50;

class IterateKill : public git::testing::RepoFixture {
 protected:
  void SetUp() override {
    RepoFixture::SetUp();
    write_text(author / "tasks/demo/task.json", "{}\n");
    commit(author, "solution/demo/k.cuh", "// v0\n", "workspace");
    git(author, "push -q origin main");
    git(work, "pull -q");
    write_text(dir / "results/base.json", to_json(make_run({100, 200})).dump(2));
    write_text(dir / "results/faster.json", to_json(make_run({80, 160})).dump(2));
    token_ = fmt::format("AKO_KILL_TEST_TOKEN={}-{}", ::getpid(), std::random_device{}());
  }

  KilledProcess start(int i, const fs::path& log) const {
    const std::string result = (dir / "results" / (i % 2 ? "faster.json" : "base.json")).string();
    return KilledProcess({AKO_BINARY_DIR "/ako", "iterate", "-m", fmt::format("idea {}", i), "--force", "--task", "demo",
                          "--no-progress", "--result-json", result},
                         work, {token_, "AKO_NCU=/nonexistent/ncu"}, log);
  }

  // What is recorded now, checked to be whole and consistent; returns the iterations the
  // summary lists (-1: no summary yet).
  int recorded(const std::string& what) {
    const TrajectoryPaths paths{work, "demo"};
    std::optional<TrajectorySummary> s;
    EXPECT_NO_THROW(s = load_trajectory(paths)) << what;
    IterationLog log;
    if (fs::exists(work / "ITERATIONS.md")) {
      EXPECT_NO_THROW(log = parse_log(read_file(work / "ITERATIONS.md"))) << what;
    }
    if (!s) {
      EXPECT_EQ(log.find("demo"), nullptr) << "a log entry without its summary\n" << what;
      return -1;
    }
    for (const auto& it : s->iterations) {
      EXPECT_TRUE(fs::exists(paths.iter_dir(it.iter) / "result.json")) << "iter " << it.iter << "\n" << what;
      EXPECT_TRUE(it.commit.has_value()) << "iter " << it.iter << " listed without its commit\n" << what;
    }
    if (const TaskLog* tl = log.find("demo")) {
      for (const auto& e : tl->entries) EXPECT_NE(s->find(e.iter), nullptr) << "log entry " << e.iter << "\n" << what;
    }
    return static_cast<int>(s->iterations.size());
  }

  std::string token_;
};

TEST_F(IterateKill, KilledAtRandomMomentsNothingIsHalfWrittenOrLostAndTheNextCallCompletes) {
  // How long one call takes, on a workspace of its own (the loop's starts from nothing): the
  // faster of two calls, as the first may pay cold caches the later ones do not (a 2026-11-29
  // CI run measured a slow first call, and most kills then came after their call had ended).
  const fs::path log = dir / "kill.log";
  double whole_s = 0;
  for (int calibration = 0; calibration < 2; ++calibration) {
    const auto t0 = std::chrono::steady_clock::now();
    KilledProcess p = start(0, log);
    const Ended e = p.stop_after(60000, SIGKILL);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    whole_s = calibration == 0 ? s : std::min(whole_s, s);
    ASSERT_EQ(e.code, 0) << read_file(log);
    git(work, "checkout -q main");
    git(work, "branch -q -D opt/demo");
    fs::remove_all(work / "trajectory");
    fs::remove(work / "ITERATIONS.md");
    ASSERT_EQ(git(work, "status --porcelain --untracked-files=all"), "");
  }

  std::mt19937 rng(20261118);
  const std::vector<int> signals{SIGINT, SIGTERM, SIGKILL};
  int killed = 0, iterations = -1;
  std::map<std::string, int> said;   // what the calls after a kill reported having repaired
  for (int i = 0; i < kKills; ++i) {
    const int sig = signals[i % signals.size()];
    // From a fifth of a call in (before that it is still starting up) to past its end.
    const int delay = std::uniform_int_distribution<int>(static_cast<int>(whole_s * 200), static_cast<int>(whole_s * 1200))(rng);
    KilledProcess p = start(i, log);
    const Ended e = p.stop_after(delay, sig);
    const std::string what = fmt::format("kill {} ({} after {:.3f} s, {}):\n{}", i, testsupport::signal_name(sig),
                                         e.after_s, e.signalled ? "killed" : fmt::format("exited {}", e.code),
                                         read_file(log));
    EXPECT_TRUE(testsupport::left_after(token_, 500).empty()) << what;
    const std::string out = read_file(log);
    for (const char* repair : {"left by an ako killed while writing", "finished recording iteration",
                               "undid the unfinished iteration", "removed the temporary files"})
      if (out.find(repair) != std::string::npos) ++said[repair];
    if (e.signalled) ++killed;
    else EXPECT_EQ(e.code, 0) << what;
    const int now = recorded(what);
    EXPECT_GE(now, iterations) << "a recorded iteration was lost\n" << what;
    iterations = now;
  }
  EXPECT_GE(killed, kKills / 2);
  std::cout << fmt::format("{} kills, {} while ako ran (one call takes {:.3f} s); {} iterations recorded\n", kKills,
                           killed, whole_s, iterations);
  for (const auto& [repair, n] : said) std::cout << fmt::format("  {} calls said: {}\n", n, repair);

  // The next call finishes or undoes what the last kill left, then records one more.
  KilledProcess last = start(kKills, log);
  const Ended e = last.stop_after(60000, SIGKILL);
  const std::string out = read_file(log);
  ASSERT_EQ(e.code, 0) << out;
  const int final_count = recorded(out);
  EXPECT_GT(final_count, std::max(iterations, 0)) << out;
  EXPECT_EQ(git(work, "status --porcelain --untracked-files=all"), "") << out;
  const std::string commits = git(work, "log --format=%B opt/demo");
  int committed = 0;
  for (size_t at = 0; (at = commits.find("task: demo\n", at)) != std::string::npos; ++at) ++committed;
  EXPECT_EQ(committed, final_count) << commits;
  EXPECT_EQ(parse_log(read_file(work / "ITERATIONS.md")).find("demo")->entries.size(), size_t(final_count));
}

}  // namespace
}  // namespace ako::iterate
