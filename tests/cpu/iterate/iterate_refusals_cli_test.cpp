// What `ako iterate` must refuse, and what a refusal must leave behind: nothing. A run where
// nothing was measured (no GPU, in a recorded result or here) is never an iteration; a measured
// entry of ITERATIONS.md is never replaced by an unmeasured one; a task that does not exist
// and a machine without a GPU are found out before the user's branch is touched. After each
// refusal the branch, HEAD, the branches and the bytes of ITERATIONS.md are checked.
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "cpu/git/repo_fixture.hpp"
#include "exec/client/gpu_probe.hpp"
#include "iterate/log_markdown.hpp"
#include "results_fixture.hpp"

namespace ako::iterate {
namespace {

using git::testing::contains;
using git::testing::Shell;
using git::testing::write_text;
using testing::make_run;
namespace fs = std::filesystem;

// Iteration 0 as it was written by hand before ako recorded it: measured, with prose.
IterationLog hand_written_log() {
  LogEntry e;
  e.iter = 0;
  e.title = "[baseline] hand-written";
  e.speedup = "1.339x";
  e.runtime = "3755.14 us";
  e.status = "baseline";
  e.hypothesis = "Memory-bound: the floor is bytes / copy bandwidth.";
  e.changes = "`solution/demo/k.cuh` as first written.";
  e.bench = "| shape | reference | solution |\n| --- | --- | --- |\n| s0 | 8.32 | 4.10 |";
  e.ncu = "Not profiled.";
  e.analysis = "The prediction held.";
  e.next = "Wider stores.";
  return IterationLog{default_preamble(), {TaskLog{"demo", {e}}}};
}

// A run that compiled but ran nothing: what `ako run --json` writes without a GPU.
RunResult unmeasured_run() {
  RunResult r = make_run({100, 200}, 0.002, {Verdict::skipped, Verdict::skipped});
  for (auto& c : r.cases) c.reason = "not run: no GPU";
  r.error = "no GPU: libcuda.so.1 not found";
  r.device = {};
  summarize(r);
  r.summary.compiled = true;
  return r;
}

class IterateRefusals : public git::testing::RepoFixture {
 protected:
  void SetUp() override {
    RepoFixture::SetUp();
    write_text(author / "tasks/demo/task.json", "{}\n");
    write_text(author / "ITERATIONS.md", render_log(hand_written_log()));
    commit(author, "solution/demo/k.cuh", "// v0\n", "workspace with a hand-written iteration 0");
    git(author, "push -q origin main");
    git(work, "pull -q");
    log_before = read_file(work / "ITERATIONS.md");
    head_before = rev(work, "HEAD");
  }
  void save(const std::string& name, const RunResult& r) {
    write_text(dir / "results" / (name + ".json"), to_json(r).dump(2));
  }
  Shell ako(const std::string& args) {
    return git::testing::shell("cd '" + work.string() + "' && AKO_NCU=/nonexistent/ncu '" AKO_BINARY_DIR "/ako' " +
                               args + " --no-progress");
  }
  Shell iterate_recorded(const std::string& result) {
    return ako("iterate --task demo -m 'x' --result-json '" + (dir / "results" / (result + ".json")).string() + "'");
  }
  // Nothing moved: same branch, same commit, no iteration branch, no trajectory, same log bytes.
  void expect_untouched(const Shell& r) {
    EXPECT_EQ(git(work, "rev-parse --abbrev-ref HEAD"), "main\n") << r.out;
    EXPECT_EQ(rev(work, "HEAD"), head_before) << r.out;
    EXPECT_EQ(git(work, "branch --list 'opt/*'"), "") << r.out;
    EXPECT_FALSE(fs::exists(work / "trajectory")) << r.out;
    EXPECT_EQ(read_file(work / "ITERATIONS.md"), log_before) << "ITERATIONS.md changed:\n" << r.out;
    EXPECT_FALSE(contains(r.out, "recorded (")) << r.out;
  }
  std::string log_before, head_before;
};

TEST_F(IterateRefusals, ARecordedRunThatMeasuredNothingIsRefusedAndChangesNothing) {
  save("no-gpu", unmeasured_run());
  const Shell r = iterate_recorded("no-gpu");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no GPU: libcuda.so.1 not found; nothing was measured, so no iteration was recorded"))
      << r.out;
  expect_untouched(r);
}

TEST_F(IterateRefusals, AnUnmeasuredRunNeverReplacesAMeasuredEntry) {
  save("compile-failed", testing::compile_failed_run(2));  // a verdict (failed), but no timing
  const Shell r = iterate_recorded("compile-failed");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "iteration 0 of demo in ITERATIONS.md holds measurements (runtime 3755.14 us)")) << r.out;
  EXPECT_TRUE(contains(r.out, "ITERATION: refused (nothing recorded)")) << r.out;
  expect_untouched(r);
}

TEST_F(IterateRefusals, AMeasuredRunReplacesTheHandWrittenBenchAndKeepsItsProse) {
  save("base", make_run({100, 200}));
  const Shell r = iterate_recorded("base");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string log = read_file(work / "ITERATIONS.md");
  for (const char* want : {"| 0 | [baseline] hand-written | 1.500x | 300.00 us | baseline |", "The prediction held.",
                           "| s0 bf16 weight | correct | 100.00 |"})
    EXPECT_TRUE(contains(log, want)) << want << "\n" << log;
}

TEST_F(IterateRefusals, AResultOfAnotherTaskIsRefused) {
  RunResult other = make_run({100, 200});
  other.task = "layernorm";
  save("other", other);
  const Shell r = iterate_recorded("other");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "a result of task 'layernorm', not of 'demo'")) << r.out;
  expect_untouched(r);
}

TEST_F(IterateRefusals, AnUnknownTaskIsRefusedBeforeAnyBranchIsMade) {
  save("base", make_run({100, 200}));
  for (const std::string& how : {std::string(""), " --result-json '" + (dir / "results/base.json").string() + "'"}) {
    const Shell r = ako("iterate --task nosuch -m 'x'" + how);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.out, "no task 'nosuch'")) << r.out;
    EXPECT_TRUE(contains(r.out, "tasks under")) << r.out;
    EXPECT_TRUE(contains(r.out, ": demo")) << r.out;
    expect_untouched(r);
  }
}

TEST_F(IterateRefusals, WithoutAGpuNothingIsTouched) {
  if (exec::probe_gpu().available) GTEST_SKIP() << "a GPU is present; this test is for GPU-less machines";
  // A real task, so that the spec loads and only the missing GPU can stop the run.
  for (const char* d : {"tasks/rmsnorm", "input/rmsnorm", "solution/rmsnorm"}) {
    fs::create_directories(work / d);
    fs::copy(fs::path(AKO_TEST_DIR).parent_path() / d, work / d, fs::copy_options::recursive);
  }
  git(work, "add -A");
  git(work, "commit -q -m 'the rmsnorm task'");
  git(work, "push -q origin main");
  head_before = rev(work, "HEAD");
  const Shell r = ako("iterate --task rmsnorm -m 'x'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "no GPU: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "nothing was measured, so no iteration was recorded")) << r.out;
  expect_untouched(r);
}

TEST_F(IterateRefusals, TheRecordedResultOptionIsDocumentedNotMarkedTesting) {
  const Shell r = ako("iterate --help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "--result-json")) << r.out;
  EXPECT_TRUE(contains(r.out, "nothing in it was measured")) << r.out;
  EXPECT_FALSE(contains(r.out, "(testing)")) << r.out;
}

}  // namespace
}  // namespace ako::iterate
