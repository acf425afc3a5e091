// `ako iterate --ncu` on a real GPU: in a throw-away git workspace (bare upstream + clone of
// the rmsnorm task), a baseline and two iterations, each run in full on one shape and profiled
// with Nsight Compute; then the log, the trajectory (with the .ncu-rep), the commits, and the
// report drawn from them (ako report).
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "gpu_test_support.hpp"
#include "iterate/log_markdown.hpp"

namespace ako::gputest {
namespace {

namespace fs = std::filesystem;

struct Sh {
  int status = -1;
  std::string out;
};

Sh sh(const std::string& cmd) {
  Sh r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

class IterateGpu : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / "ako-gpu-tests" / "iterate";
  fs::path work = dir / "work";

  std::string git(const fs::path& where, const std::string& args) {
    const Sh r = sh("cd '" + where.string() + "' && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -c user.name=ako-test "
                    "-c user.email=test@ako -c commit.gpgsign=false " + args);
    if (r.status != 0) ADD_FAILURE() << "git " << args << ":\n" << r.out;
    return r.out;
  }

  // A task (default: rmsnorm from the repository) as a workspace of its own, published on a
  // bare upstream and cloned.
  void make_workspace(const std::string& task = "rmsnorm", const fs::path& from = workspace()) {
    fs::remove_all(dir);
    fs::create_directories(dir / "author");
    for (const std::string d : {"tasks/", "input/", "solution/"}) {
      fs::create_directories(dir / "author" / (d + task));
      fs::copy(from / (d + task), dir / "author" / (d + task), fs::copy_options::recursive);
    }
    fs::copy_file(workspace() / ".gitignore", dir / "author/.gitignore");  // *.ncu-rep stays out of commits
    git(dir, "init -q --bare -b main upstream.git");
    git(dir / "author", "init -q -b main");
    git(dir / "author", "add -A");
    git(dir / "author", "commit -q -m workspace");
    git(dir / "author", "remote add origin '" + (dir / "upstream.git").string() + "'");
    git(dir / "author", "push -q origin main");
    git(dir, "clone -q upstream.git work");
  }

  Sh iterate(const std::string& args) {
    return sh("cd '" + work.string() + "' && '" + ako_binary().string() + "' iterate --task rmsnorm --ncu --no-progress " +
              "--shapes flux1-single --dtypes bf16 " + args);
  }

  void fill_analysis(int iter) {
    iterate::IterationLog log = iterate::parse_log(read_file(work / "ITERATIONS.md"));
    log.task("rmsnorm").find(iter)->analysis = fmt::format("Checked by the GPU test (iteration {}).", iter);
    std::ofstream(work / "ITERATIONS.md") << iterate::render_log(log);
  }
};

TEST_F(IterateGpu, BaselineAndTwoProfiledIterationsOnRmsnorm) {
  AKO_REQUIRE_GPU();
  if (sh("command -v git").status != 0) GTEST_SKIP() << "no git CLI to build the throw-away repositories";
  make_workspace();

  const Sh base = iterate("-m 'the solution as mirrored' --label 'as mirrored'");
  ASSERT_EQ(base.status, 0) << base.out;
  EXPECT_TRUE(has(base.out, "ITERATION: 0 recorded (baseline)")) << base.out;
  EXPECT_TRUE(has(base.out, "NCU: flux1-single bf16")) << "ncu did not profile (set AKO_NCU to ncu's path?):\n" << base.out;
  fill_analysis(0);

  std::ofstream(work / "solution/rmsnorm/rmsnorm.cuh", std::ios::app) << "\n// iteration 1: same kernel, comment only\n";
  const Sh one = iterate("-m 'a comment changes nothing: expect no-change' --label 'comment only'");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_TRUE(has(one.out, "ITERATION: 1 recorded (")) << one.out;
  fill_analysis(1);

  const Sh two = iterate("-m 'the same again, profiled' --label 'profile again'");
  ASSERT_EQ(two.status, 0) << two.out;
  EXPECT_TRUE(has(two.out, "ITERATION: 2 recorded (")) << two.out;

  // The log: three entries, measured and profiled.
  const std::string log = read_file(work / "ITERATIONS.md");
  for (const char* want : {"| 0 | as mirrored |", "| 1 | comment only |", "| 2 | profile again |",
                           "**ncu.** Hottest case flux1-single bf16", "| DRAM throughput |",
                           "| flux1-single bf16 weight | correct |", "vs baseline (iter 0):"})
    EXPECT_TRUE(has(log, want)) << want << "\n" << log;

  // The trajectory: snapshots, results, parsed profiles and the reports themselves.
  const auto summary = read_json(work / "trajectory/rmsnorm/summary.json");
  ASSERT_EQ(summary["iterations"].size(), 3u) << summary.dump(2);
  EXPECT_EQ(summary["iterations"][0]["commit"], git(work, "rev-parse HEAD~2").substr(0, 40));
  EXPECT_EQ(summary["iterations"][1]["commit"], git(work, "rev-parse HEAD~1").substr(0, 40));
  for (int i = 0; i < 3; ++i) {
    const fs::path it = work / fmt::format("trajectory/rmsnorm/iter-{}", i);
    EXPECT_TRUE(fs::exists(it / "solution/rmsnorm.cuh")) << it;
    EXPECT_EQ(read_json(it / "result.json")["schema"], "ako.run/1");
    EXPECT_TRUE(fs::exists(it / "ncu.ncu-rep")) << it;
    const auto ncu = read_json(it / "ncu.json");
    EXPECT_GT(ncu["dram_throughput_pct"].get<double>(), 10) << ncu.dump(2);
    EXPECT_GT(ncu["registers_per_thread"].get<int>(), 0) << ncu.dump(2);
    EXPECT_FALSE(ncu["dominant_stall"].get<std::string>().empty()) << ncu.dump(2);
    EXPECT_EQ(ncu.value("case", "").rfind("flux1-single bf16", 0), 0u) << "which case was profiled\n" << ncu.dump(2);
    EXPECT_TRUE(summary["iterations"][i]["profiled"].get<bool>());
  }

  // The commits: on opt/rmsnorm from the start point, with machine-readable bodies.
  EXPECT_EQ(git(work, "rev-parse --abbrev-ref HEAD"), "opt/rmsnorm\n");
  EXPECT_EQ(git(work, "log --format=%s -3"), "[iter 2] profile again\n[iter 1] comment only\n[baseline] as mirrored\n");
  EXPECT_EQ(git(work, "rev-parse HEAD~3"), git(work, "rev-parse upstream/main"));
  const std::string body = git(work, "log -1 --format=%b");
  for (const char* want : {"task: rmsnorm\n", "iter: 2\n", "gpu: NVIDIA", "correctness: correct\n", "ncu: flux1-single bf16"})
    EXPECT_TRUE(has(body, want)) << want << "\n" << body;
  EXPECT_EQ(git(work, "status --porcelain --untracked-files=all"), "") << "everything recorded is committed";

  // `ako report` over this trajectory: the ncu pair measured here, before (iteration 0) and
  // after (the best). With AKO_REPORT_OUT set, the report is copied there to be kept.
  const Sh rep = sh("cd '" + work.string() + "' && '" + ako_binary().string() + "' report rmsnorm --out report");
  ASSERT_EQ(rep.status, 0) << rep.out;
  const std::string md = read_file(work / "report/report.md");
  for (const char* want : {"## ncu: before / after", "| case | flux1-single bf16", "| DRAM throughput (% of peak) | ",
                           "## Iterations", " | as mirrored | baseline | "})
    EXPECT_TRUE(has(md, want)) << want << "\n" << md;
  EXPECT_FALSE(has(md, "| DRAM throughput (% of peak) | - |")) << "a measured DRAM % before\n" << md;
  EXPECT_TRUE(has(read_file(work / "report/report.html"), R"(data-plot="history-case")"));
  if (const char* keep = std::getenv("AKO_REPORT_OUT"); keep && *keep) {
    fs::create_directories(keep);
    fs::copy(work / "report", keep, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    fs::copy(work / "trajectory", fs::path(keep) / "trajectory", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
}

// The same loop on a format-v2 task (tests/tasks/qk_view: strided views, in place, an integer
// axis): a baseline, one iteration, and `ako best` restoring the best.
TEST_F(IterateGpu, BaselineIterationAndBestOnAViewTask) {
  AKO_REQUIRE_GPU();
  if (sh("command -v git").status != 0) GTEST_SKIP() << "no git CLI to build the throw-away repositories";
  make_workspace("qk_view", workspace() / "tests/tasks");
  auto run = [&](const std::string& cmd) {
    return sh("cd '" + work.string() + "' && '" + ako_binary().string() + "' " + cmd + " --task qk_view --no-progress");
  };
  const Sh base = run("iterate -m 'the capability solution' --label 'as written'");
  ASSERT_EQ(base.status, 0) << base.out;
  EXPECT_TRUE(has(base.out, "ITERATION: 0 recorded (baseline)")) << base.out;
  iterate::IterationLog log = iterate::parse_log(read_file(work / "ITERATIONS.md"));
  log.task("qk_view").find(0)->analysis = "Checked by the GPU test.";
  std::ofstream(work / "ITERATIONS.md") << iterate::render_log(log);
  std::ofstream(work / "solution/qk_view/qknorm.cuh", std::ios::app) << "\n// iteration 1: comment only\n";
  const Sh one = run("iterate -m 'a comment changes nothing' --label 'comment only'");
  ASSERT_EQ(one.status, 0) << one.out;
  log = iterate::parse_log(read_file(work / "ITERATIONS.md"));
  EXPECT_TRUE(has(read_file(work / "ITERATIONS.md"), "| flux1 bf16 head_dim=128 | correct |"));
  log.task("qk_view").find(1)->analysis = "Checked by the GPU test.";
  std::ofstream(work / "ITERATIONS.md") << iterate::render_log(log);
  const Sh best = run("best");
  ASSERT_EQ(best.status, 0) << best.out;
  EXPECT_TRUE(has(git(work, "log -1 --format=%s"), "[final] Restore iter-")) << git(work, "log -3 --format=%s");
}

}  // namespace
}  // namespace ako::gputest
