// `ako gate` as CI meets it on a machine without a GPU: it compiles every kernel for the
// baseline's arch, checks the resource budgets, says plainly what it skipped, writes the
// markdown summary and JSON, and exits 0 / 1 / 2 as documented.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "exec/client/gpu_probe.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;

Ran ako(const std::string& args, const fs::path& cwd) { return ako::testsupport::run_ako(args, cwd); }

// A throw-away workspace: the real task, input, solution and committed baseline.
fs::path make_workspace(const std::string& name) {
  const fs::path ws = fs::temp_directory_path() / ("ako-gate-ws-" + name);
  fs::remove_all(ws);
  for (const char* d : {"tasks/rmsnorm", "input/rmsnorm", "solution/rmsnorm", "bench"}) fs::create_directories(ws / d);
  for (const char* d : {"tasks/rmsnorm", "input/rmsnorm", "solution/rmsnorm"})
    fs::copy(fs::path(AKO_SOURCE_DIR) / d, ws / d, fs::copy_options::recursive);
  fs::copy_file(fs::path(AKO_SOURCE_DIR) / "bench/baseline.json", ws / "bench/baseline.json");
  return ws;
}

nlohmann::json read_json(const fs::path& f) { return nlohmann::json::parse(ako::read_file(f)); }

class GateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ako::exec::probe_gpu().available) GTEST_SKIP() << "a GPU is present; these tests are for GPU-less machines";
  }
};

TEST_F(GateCli, CommittedBaselinePassesWithoutGpuAndSaysWhatItSkipped) {
  const fs::path ws = make_workspace("pass");
  const Ran r = ako("gate --baseline bench/baseline.json --summary summary.md --json gate.json", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "correctness  SKIPPED  no GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "timing       SKIPPED  no GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "resources    ran")) << r.out;
  EXPECT_TRUE(has(r.out, "GATE: PASS")) << r.out;

  const std::string md = ako::read_file(ws / "summary.md");
  EXPECT_TRUE(has(md, "## ako gate: PASS")) << md;
  EXPECT_TRUE(has(md, "| rmsnorm | correctness | **skipped** | no GPU")) << md;
  const auto j = read_json(ws / "gate.json");
  EXPECT_EQ(j["schema"], "ako.gate/1");
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_GT(j["counts"]["pass"].get<int>(), 10);  // every reference and solution kernel against its budget
}

// The verdict line agrees with the coverage lines: checks that could not run count as skipped.
TEST_F(GateCli, WithoutGpuTheVerdictLineCountsTheSkippedChecks) {
  const fs::path ws = make_workspace("counts");
  const Ran r = ako("gate --baseline bench/baseline.json --json gate.json", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  const auto j = read_json(ws / "gate.json");
  const int skipped = j["counts"]["skipped"].get<int>();
  EXPECT_GE(skipped, 2 * 40) << "a correctness and a timing check per compare case";
  EXPECT_TRUE(has(r.out, ", " + std::to_string(skipped) + " skipped)")) << r.out;
  EXPECT_FALSE(has(r.out, " 0 skipped)")) << r.out;
  EXPECT_TRUE(has(r.out, "skipped  correctness 64 x no GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "skipped  timing      40 x no GPU")) << r.out;
}

TEST_F(GateCli, UpdateNeverCreatesAMissingFolder) {
  const fs::path ws = make_workspace("no-folder");
  const Ran r = ako("gate --update-baseline --baseline typo/bench/baseline.json", ws);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "the folder " + (ws / "typo/bench").string() + " does not exist")) << r.out;
  EXPECT_FALSE(fs::exists(ws / "typo"));
}

TEST_F(GateCli, TighterBudgetFailsWithExitOne) {
  const fs::path ws = make_workspace("budget");
  auto b = read_json(ws / "bench/baseline.json");
  auto& sol = b["tasks"]["rmsnorm"]["kernels"]["solution"];
  const std::string first = sol.begin().key();
  const int regs = sol[first]["budget"]["registers"];
  sol[first]["budget"]["registers"] = regs - 8;  // as if the kernel had grown 8 registers since
  ako::write_file_atomically(ws / "bench/baseline.json", b.dump(2));
  const Ran r = ako("gate --baseline bench/baseline.json --json gate.json", ws);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "registers " + std::to_string(regs) + " > budget")) << r.out;
  EXPECT_TRUE(has(r.out, "GATE: FAIL")) << r.out;
  EXPECT_FALSE(read_json(ws / "gate.json")["passed"].get<bool>());
}

TEST_F(GateCli, UpdateWithoutGpuRefreshesBudgetsOnlyAndRefusesOnFailure) {
  const fs::path ws = make_workspace("update");
  auto b = read_json(ws / "bench/baseline.json");
  auto& sol = b["tasks"]["rmsnorm"]["kernels"]["solution"];
  const std::string first = sol.begin().key();
  sol[first]["budget"]["registers"] = 1;
  ako::write_file_atomically(ws / "bench/baseline.json", b.dump(2));
  const std::string before = ako::read_file(ws / "bench/baseline.json");
  const Ran refused = ako("gate --baseline bench/baseline.json --update-baseline", ws);
  EXPECT_EQ(refused.status, 1) << refused.out;
  EXPECT_TRUE(has(refused.out, "refusing to update")) << refused.out;
  EXPECT_EQ(ako::read_file(ws / "bench/baseline.json"), before);

  fs::remove(ws / "bench/baseline.json");
  const Ran made = ako("gate --baseline bench/baseline.json --update-baseline", ws);
  EXPECT_EQ(made.status, 0) << made.out;
  EXPECT_TRUE(has(made.out, "resource budgets for sm_90a only")) << made.out;
  const auto fresh = read_json(ws / "bench/baseline.json");
  EXPECT_EQ(fresh["schema"], "ako.baseline/1");
  EXPECT_TRUE(fresh["device"].is_null());
  EXPECT_GT(fresh["tasks"]["rmsnorm"]["kernels"]["solution"].size(), 0u);
  EXPECT_EQ(ako("gate --baseline bench/baseline.json", ws).status, 0);
}

TEST_F(GateCli, UsageAndBaselineErrorsExitTwo) {
  const fs::path ws = make_workspace("errors");
  EXPECT_EQ(ako("gate", ws).status, 2);  // --baseline is required
  const Ran missing = ako("gate --baseline nope.json", ws);
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(has(missing.out, "--update-baseline")) << missing.out;
  const Ran task = ako("gate --baseline bench/baseline.json --tasks nosuch", ws);
  EXPECT_EQ(task.status, 2);
  EXPECT_TRUE(has(task.out, "rmsnorm")) << task.out;
  ako::write_file_atomically(ws / "v2.json", R"({"schema": "ako.baseline/2", "tasks": {}})");
  const Ran schema = ako("gate --baseline v2.json", ws);
  EXPECT_EQ(schema.status, 2);
  EXPECT_TRUE(has(schema.out, "ako.baseline/1")) << schema.out;
  EXPECT_EQ(ako("gate --baseline bench/baseline.json --threshold -1", ws).status, 2);
}

TEST_F(GateCli, CompileErrorExitsTwoAndStillWritesTheReport) {
  const fs::path ws = make_workspace("broken");
  ako::write_file_atomically(ws / "solution/rmsnorm/rmsnorm.cuh", "this is not C++;\n");
  const Ran r = ako("gate --baseline bench/baseline.json --json gate.json", ws);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "rmsnorm.cuh(1)")) << r.out;
  EXPECT_FALSE(read_json(ws / "gate.json")["passed"].get<bool>());
}

TEST_F(GateCli, MissingTaskInWorkspaceFails) {
  const fs::path ws = make_workspace("missing-task");
  auto b = read_json(ws / "bench/baseline.json");
  b["tasks"]["layernorm"] = b["tasks"]["rmsnorm"];
  ako::write_file_atomically(ws / "bench/baseline.json", b.dump(2));
  const Ran r = ako("gate --baseline bench/baseline.json", ws);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "tasks/layernorm does not exist")) << r.out;
}

}  // namespace
