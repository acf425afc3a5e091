// `ako iterate` and `ako best` as a user meets them, on a throw-away workspace (bare upstream +
// clone), with recorded results (--result-json) so that no GPU is needed: the baseline, the
// Analysis refusal, an improvement, hygiene, the stall rule, an incorrect iteration and the
// restore of the best, each checked in ITERATIONS.md, summary.json and the commits.
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "cpu/git/repo_fixture.hpp"
#include "iterate/log_markdown.hpp"
#include "results_fixture.hpp"

namespace ako::iterate {
namespace {

using git::testing::contains;
using git::testing::Shell;
using git::testing::write_text;
using testing::make_run;
namespace fs = std::filesystem;

class IterateCli : public git::testing::RepoFixture {
 protected:
  void SetUp() override {
    RepoFixture::SetUp();
    write_text(author / "tasks/demo/task.json", "{}\n");
    commit(author, "solution/demo/k.cuh", "// v0\n", "workspace");
    git(author, "push -q origin main");
    git(work, "pull -q");
    save("base", make_run({100, 200}));
    save("faster", make_run({80, 160}));
    save("same", make_run({80.2, 160.3}));
    save("incorrect", make_run({50, 100}, 0.002, {Verdict::correct, Verdict::incorrect}));
  }
  void save(const std::string& name, const RunResult& r) {
    write_text(dir / "results" / (name + ".json"), to_json(r).dump(2));
  }
  Shell ako(const std::string& args, const std::string& result) {
    return git::testing::shell("cd '" + work.string() + "' && AKO_NCU=/nonexistent/ncu '" AKO_BINARY_DIR "/ako' " +
                               args + " --task demo --no-progress --result-json '" + (dir / "results" / (result + ".json")).string() + "'");
  }
  Shell iterate(const std::string& hypothesis, const std::string& result, const std::string& extra = "") {
    return ako("iterate -m '" + hypothesis + "' " + extra, result);
  }
  nlohmann::json summary() { return nlohmann::json::parse(read_file(work / "trajectory/demo/summary.json")); }
  std::string subject() { return git(work, "log -1 --format=%s"); }
  void fill_analysis(int iter) {
    IterationLog log = parse_log(read_file(work / "ITERATIONS.md"));
    log.task("demo").find(iter)->analysis = "Understood: iteration " + std::to_string(iter) + ".";
    write_text(work / "ITERATIONS.md", render_log(log));
  }
  void baseline() {
    const Shell r = iterate("as mirrored", "base", "--label 'as mirrored'");
    ASSERT_EQ(r.status, 0) << r.out;
    fill_analysis(0);
  }
};

TEST_F(IterateCli, TheFirstCallRecordsTheBaselineOnANewBranch) {
  const Shell r = iterate("as mirrored", "base", "--label 'as mirrored'");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want : {"created branch opt/demo", "ITERATION: 0 recorded (baseline)", "CORRECT: correct (2 correct",
                           "SPEEDUP_VS_BASELINE: 1.0000x", "RUNTIME: 300.00 us", "BEST: iter 0", "NCU: not profiled"})
    EXPECT_TRUE(contains(r.out, want)) << want << "\n" << r.out;
  EXPECT_EQ(git(work, "rev-parse --abbrev-ref HEAD"), "opt/demo\n");
  EXPECT_EQ(subject(), "[baseline] as mirrored\n");
  EXPECT_EQ(git(work, "rev-parse HEAD~1"), git(work, "rev-parse upstream/main"));
  EXPECT_EQ(git(work, "status --porcelain --untracked-files=all"), "");

  const std::string log = read_file(work / "ITERATIONS.md");
  for (const char* want : {"## Task demo", "| 0 | as mirrored | 1.500x | 300.00 us | baseline |", "### Iter 0 — as mirrored",
                           "**Changes.** Baseline: `solution/demo/` as mirrored (`solution/demo/k.cuh`).",
                           "| s0 bf16 weight | correct | 100.00 | 98.00 ~ 105.00 | 100.00 | 1.50x | - | 90.0 |",
                           "**ncu.** Not profiled", "**Analysis.** _(to fill in"})
    EXPECT_TRUE(contains(log, want)) << want << "\n" << log;
  const auto s = summary();
  EXPECT_EQ(s["task"], "demo");
  EXPECT_EQ(s["baseline"], 0);
  EXPECT_EQ(s["best"], 0);
  EXPECT_FALSE(s["iterations"][0].contains("commit")) << "a commit cannot name itself";
  EXPECT_EQ(read_file(work / "trajectory/demo/iter-0/solution/k.cuh"), "// v0\n");
  EXPECT_TRUE(fs::exists(work / "trajectory/demo/iter-0/result.json"));
}

TEST_F(IterateCli, AnEmptyAnalysisRefusesTheNextIterationUnlessForced) {
  ASSERT_EQ(iterate("as mirrored", "base").status, 0);
  const std::string head = rev(work, "HEAD");
  write_text(work / "solution/demo/k.cuh", "// v1\n");
  const Shell refused = iterate("wider loads", "faster");
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_TRUE(contains(refused.out, "the Analysis of iteration 0 of demo in ITERATIONS.md is still empty")) << refused.out;
  EXPECT_TRUE(contains(refused.out, "ITERATION: refused (nothing recorded)")) << refused.out;
  EXPECT_EQ(rev(work, "HEAD"), head);
  const Shell forced = iterate("wider loads", "faster", "--force");
  EXPECT_EQ(forced.status, 0) << forced.out;
  EXPECT_TRUE(contains(forced.out, "ITERATION: 1 recorded (improved)")) << forced.out;
}

TEST_F(IterateCli, AnImprovementIsComparedCommittedAndBecomesTheBest) {
  baseline();
  write_text(work / "solution/demo/k.cuh", "// v1: wider loads\n// two lines\n");
  const Shell r = iterate("16-byte loads halve the load instructions", "faster", "--label 'wider loads'");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want : {"ITERATION: 1 recorded (improved)", "SPEEDUP_VS_BASELINE: 1.2500x", "BEST: iter 1"})
    EXPECT_TRUE(contains(r.out, want)) << want << "\n" << r.out;
  EXPECT_EQ(subject(), "[iter 1] wider loads\n");
  const std::string body = git(work, "log -1 --format=%b");
  for (const char* want : {"task: demo\n", "iter: 1\n", "gpu: NVIDIA H100 80GB HBM3\n", "correctness: correct\n",
                           "status: improved\n", "speedup_vs_baseline: 1.2500\n", "runtime_us: 240.00\n", "best: 1\n"})
    EXPECT_TRUE(contains(body, want)) << want << "\n" << body;
  const std::string in_commit = git(work, "show --name-only --format= HEAD");
  for (const char* want : {"ITERATIONS.md", "solution/demo/k.cuh", "trajectory/demo/iter-1/solution/k.cuh",
                           "trajectory/demo/iter-1/result.json", "trajectory/demo/summary.json"})
    EXPECT_TRUE(contains(in_commit, want)) << want << "\n" << in_commit;

  const std::string log = read_file(work / "ITERATIONS.md");
  for (const char* want : {"| 1 | wider loads | 1.500x | 240.00 us | improved |", "Understood: iteration 0.",
                           "solution/demo/k.cuh | 3 ++-", "vs baseline (iter 0): 1.250x over 2 cases",
                           "vs best (iter 0): 1.250x", "beyond the noise", "| s1 bf16 weight | correct | 160.00 |"})
    EXPECT_TRUE(contains(log, want)) << want << "\n" << log;
  const auto s = summary();
  EXPECT_EQ(s["best"], 1);
  EXPECT_EQ(s["iterations"][0]["commit"], rev(work, "HEAD~1")) << "filled in once the next commit exists";
  EXPECT_EQ(s["iterations"][1]["status"], "improved");
  EXPECT_DOUBLE_EQ(s["iterations"][1]["speedup_vs_baseline"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(s["iterations"][1]["runtime_us"].get<double>(), 240);
}

TEST_F(IterateCli, DirtOutsideTheIterationsOwnFilesIsRefused) {
  baseline();
  write_text(work / "notes.txt", "scratch\n");
  const Shell r = iterate("x", "faster");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "[untracked-files] 1 untracked file")) << r.out;
  EXPECT_TRUE(contains(r.out, "notes.txt")) << r.out;
  EXPECT_FALSE(contains(r.out, "ITERATIONS.md")) << "the user's Analysis is not dirt:\n" << r.out;
  EXPECT_TRUE(contains(r.out, "ITERATION: refused")) << r.out;
}

TEST_F(IterateCli, ThreeFlatIterationsStallAndTryNcu) {
  baseline();
  ASSERT_EQ(iterate("wider loads", "faster").status, 0);
  Shell r;
  for (const char* h : {"unroll by 2", "unroll by 4", "fewer barriers"}) {
    r = iterate(h, "same", "--force");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(contains(r.out, "(no-change)")) << r.out;
  }
  for (const char* want : {"STALL: 3 consecutive iterations gained less than 3% over the best", "iter 2 (no-change",
                           "): unroll by 2", "iter 4 (no-change", "): fewer barriers",
                           "ncu (Nsight Compute) was not found (looked at $AKO_NCU=/nonexistent/ncu)",
                           "STALL: yes (3 iterations under +3% over the best)"})
    EXPECT_TRUE(contains(r.out, want)) << want << "\n" << r.out;
  const std::string log = read_file(work / "ITERATIONS.md");
  EXPECT_TRUE(contains(log, "**ncu.** not profiled: ncu (Nsight Compute) was not found")) << log;
  EXPECT_TRUE(contains(git(work, "log -1 --format=%b"), "ncu: not profiled: ncu (Nsight Compute) was not found"));
  EXPECT_EQ(summary()["best"], 1);
}

// The profiled run gets a case timeout as long as ncu's own limit: ncu replays the launch once
// per pass inside one launch of ako's watchdog, whose usual limit stopped it on the H200.
TEST_F(IterateCli, TheProfiledRunTakesALongCaseTimeout) {
  const fs::path argv_file = dir / "ncu-argv.txt";
  const fs::path fake_ncu = dir / "fake-ncu";
  write_text(fake_ncu, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + argv_file.string() + "'\nexit 1\n");
  fs::permissions(fake_ncu, fs::perms::owner_all);
  const Shell r = git::testing::shell("cd '" + work.string() + "' && AKO_NCU='" + fake_ncu.string() + "' '" AKO_BINARY_DIR
                                      "/ako' iterate -m 'as mirrored' --task demo --ncu --no-progress --result-json '" +
                                      (dir / "results" / "base.json").string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(fs::exists(argv_file)) << r.out;
  const std::string argv = read_file(argv_file);
  EXPECT_TRUE(contains(argv, "--case-timeout\n600\n")) << argv;
  EXPECT_TRUE(contains(argv, "--no-cupti\n")) << argv;
}

TEST_F(IterateCli, AnIncorrectIterationIsStillLoggedAndCommitted) {
  baseline();
  write_text(work / "solution/demo/k.cuh", "// broken\n");
  const Shell r = iterate("skip the tail", "incorrect");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "ITERATION: 1 recorded (incorrect)")) << r.out;
  EXPECT_EQ(subject(), "[iter 1] skip the tail\n");
  EXPECT_TRUE(contains(git(work, "log -1 --format=%b"), "correctness: incorrect\n"));
  EXPECT_TRUE(contains(read_file(work / "ITERATIONS.md"), "| s1 bf16 weight | incorrect: 12 of 4096 elements")) << read_file(work / "ITERATIONS.md");
  EXPECT_EQ(summary()["best"], 0);
  EXPECT_TRUE(summary()["iterations"][1]["runtime_us"].is_null());
}

TEST_F(IterateCli, BestRestoresTheExactBenchedSourceAndCommitsFinal) {
  baseline();
  write_text(work / "solution/demo/k.cuh", "// v1 best\n");
  write_text(work / "solution/demo/extra.cuh", "// v1 helper\n");
  ASSERT_EQ(iterate("v1", "faster").status, 0);
  fill_analysis(1);
  write_text(work / "solution/demo/k.cuh", "// v2 slower\n");
  fs::remove(work / "solution/demo/extra.cuh");
  ASSERT_EQ(iterate("v2", "base").status, 0);
  fill_analysis(2);

  write_text(work / "solution/demo/k.cuh", "// uncommitted idea\n");
  const Shell refused = ako("best", "faster");
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_TRUE(contains(refused.out, "would overwrite uncommitted changes: solution/demo/k.cuh")) << refused.out;
  git(work, "checkout -q HEAD -- solution/demo/k.cuh");

  const Shell r = ako("best", "faster");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "restored solution/demo/ from iter-1")) << r.out;
  EXPECT_EQ(subject(), "[final] Restore iter-1 (1.25x vs baseline)\n");
  EXPECT_EQ(read_file(work / "solution/demo/k.cuh"), "// v1 best\n");
  EXPECT_EQ(read_file(work / "solution/demo/extra.cuh"), "// v1 helper\n");
  EXPECT_EQ(git(work, "show HEAD:solution/demo/k.cuh"), "// v1 best\n");
  EXPECT_EQ(git(work, "status --porcelain --untracked-files=all"), "");
  const std::string log = read_file(work / "ITERATIONS.md");
  EXPECT_TRUE(contains(log, "### Iter 3 — Restore iter-1")) << log;
  EXPECT_TRUE(contains(log, "Restored `solution/demo/` from iter-1")) << log;
  EXPECT_EQ(summary()["iterations"][3]["status"], "no-change");
}

TEST_F(IterateCli, UsageErrorsExitTwoAndRecordNothing) {
  const Shell no_m = git::testing::shell("cd '" + work.string() + "' && '" AKO_BINARY_DIR "/ako' iterate --task demo 2>&1");
  EXPECT_EQ(no_m.status, 2) << no_m.out;
  const Shell best_first = ako("best", "base");
  EXPECT_EQ(best_first.status, 2) << best_first.out;
  EXPECT_TRUE(contains(best_first.out, "record the baseline first")) << best_first.out;
  const Shell bad = iterate("x", "nonexistent");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_FALSE(fs::exists(work / "trajectory"));
}

}  // namespace
}  // namespace ako::iterate
