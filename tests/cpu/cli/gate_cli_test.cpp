// `ako gate` as CI meets it on a machine without a GPU: it compiles every kernel of every
// baseline entry (device) for the entry's arch with that device's config, checks the resource
// budgets, says plainly what it skipped, writes the markdown summary and JSON, and exits
// 0 / 1 / 2 as documented.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
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
// A workspace with the rmsnorm task and the committed baseline cut to that task (its entries
// hold every task; CI's own `ako gate` step checks them all, these tests check the command).
fs::path make_workspace(const std::string& name) {
  const fs::path ws = ako::testsupport::copy_workspace("gate-" + name);
  fs::create_directories(ws / "bench");
  nlohmann::json baseline = nlohmann::json::parse(ako::read_file(fs::path(AKO_SOURCE_DIR) / "bench/baseline.json"));
  for (auto& [device, entry] : baseline["devices"].items()) {
    nlohmann::json rmsnorm_only = nlohmann::json::object();
    rmsnorm_only["rmsnorm"] = entry["tasks"]["rmsnorm"];
    entry["tasks"] = rmsnorm_only;
  }
  std::ofstream(ws / "bench/baseline.json") << baseline.dump(2) << "\n";
  return ws;
}

nlohmann::json read_json(const fs::path& f) { return nlohmann::json::parse(ako::read_file(f)); }

const std::string kH100 = "NVIDIA H100 80GB HBM3";

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
  EXPECT_TRUE(has(r.out, "baseline entries checked: NVIDIA H100 80GB HBM3 (sm_90a)")) << r.out;
  EXPECT_TRUE(has(r.out, "task rmsnorm, baseline entry NVIDIA H100 80GB HBM3")) << r.out;
  // The entry's own device config is the one compiled and budgeted.
  EXPECT_TRUE(has(r.out, "config solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json")) << r.out;
  EXPECT_TRUE(has(r.out, "correctness  SKIPPED  no GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "timing       SKIPPED  no GPU")) << r.out;
  EXPECT_TRUE(has(r.out, "resources    ran")) << r.out;
  EXPECT_TRUE(has(r.out, "GATE: PASS")) << r.out;

  const std::string md = ako::read_file(ws / "summary.md");
  EXPECT_TRUE(has(md, "## ako gate: PASS")) << md;
  EXPECT_TRUE(has(md, "| rmsnorm (NVIDIA H100 80GB HBM3) | correctness | **skipped** | no GPU")) << md;
  const auto j = read_json(ws / "gate.json");
  EXPECT_EQ(j["schema"], "ako.gate/1");
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_GT(j["counts"]["pass"].get<int>(), 10);  // every reference and solution kernel against its budget
  EXPECT_EQ(j["coverage"][0]["entry"], kH100);
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
  auto& sol = b["devices"][kH100]["tasks"]["rmsnorm"]["kernels"]["solution"];
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
  auto& sol = b["devices"][kH100]["tasks"]["rmsnorm"]["kernels"]["solution"];
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
  EXPECT_TRUE(has(made.out, "resource budgets only, for entry default (sm_90a)")) << made.out;
  const auto fresh = read_json(ws / "bench/baseline.json");
  EXPECT_EQ(fresh["schema"], "ako.baseline/2");
  ASSERT_TRUE(fresh["devices"].contains("default")) << fresh.dump(2);  // the default.json config's budgets
  EXPECT_TRUE(fresh["devices"]["default"]["device"].is_null());
  EXPECT_GT(fresh["devices"]["default"]["tasks"]["rmsnorm"]["kernels"]["solution"].size(), 0u);
  EXPECT_EQ(ako("gate --baseline bench/baseline.json", ws).status, 0);
}

// A device with no entry: said plainly, its own config (here default.json: the B200 has no
// file) still compiled and statically checked, and nothing fails for the missing entry.
TEST_F(GateCli, ADeviceWithNoEntryIsSaidPlainlyAndPasses) {
  const fs::path ws = make_workspace("no-entry");
  const Ran r = ako("gate --baseline bench/baseline.json --device \"NVIDIA B200\" --json gate.json", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "note: no baseline entry for NVIDIA B200 (entries: NVIDIA H100 80GB HBM3, NVIDIA H200); budgets not "
                         "compared; its config compiled and statically checked"))
      << r.out;
  EXPECT_TRUE(has(r.out, "config solution/rmsnorm/configs/default.json (NVIDIA B200 has no config of its own)")) << r.out;
  EXPECT_TRUE(has(r.out, "resources    SKIPPED  no baseline entry for NVIDIA B200")) << r.out;
  EXPECT_TRUE(has(r.out, "GATE: PASS")) << r.out;
  EXPECT_EQ(read_json(ws / "gate.json")["coverage"][0]["entry"], "NVIDIA B200");
}

// --update-baseline writes only the device's entry: the H100's stays exactly as it was.
TEST_F(GateCli, UpdateAddsTheDevicesEntryAndKeepsTheOthers) {
  const fs::path ws = make_workspace("add-entry");
  const auto before = read_json(ws / "bench/baseline.json");
  // Spelled as the file name would be: the entry is still keyed as the GPU names itself.
  const Ran made = ako("gate --baseline bench/baseline.json --update-baseline --device NVIDIA_B200", ws);
  ASSERT_EQ(made.status, 0) << made.out;
  EXPECT_TRUE(has(made.out, "resource budgets only, for entry NVIDIA B200 (sm_90a)")) << made.out;
  EXPECT_TRUE(has(made.out, "other entries kept: NVIDIA H100 80GB HBM3")) << made.out;
  const auto after = read_json(ws / "bench/baseline.json");
  EXPECT_EQ(after["devices"][kH100], before["devices"][kH100]);
  ASSERT_TRUE(after["devices"].contains("NVIDIA B200"));
  EXPECT_TRUE(after["devices"]["NVIDIA B200"]["device"].is_null());

  // Both entries are checked now, each with its own device's config, and the gate passes.
  const Ran both = ako("gate --baseline bench/baseline.json", ws);
  EXPECT_EQ(both.status, 0) << both.out;
  EXPECT_TRUE(has(both.out, "baseline entries checked: NVIDIA B200 (sm_90a), NVIDIA H100 80GB HBM3 (sm_90a)"))
      << both.out;
  EXPECT_TRUE(has(both.out, "task rmsnorm, baseline entry NVIDIA B200")) << both.out;
  EXPECT_TRUE(has(both.out, "config solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json")) << both.out;
  EXPECT_TRUE(has(both.out, "config solution/rmsnorm/configs/default.json (NVIDIA B200 has no config of its own)"))
      << both.out;

  // A budget broken in the B200's entry fails the gate; the H100's is untouched by it.
  auto b = after;
  auto& sol = b["devices"]["NVIDIA B200"]["tasks"]["rmsnorm"]["kernels"]["solution"];
  sol[sol.begin().key()]["budget"]["registers"] = 1;
  ako::write_file_atomically(ws / "bench/baseline.json", b.dump(2));
  const Ran broken = ako("gate --baseline bench/baseline.json", ws);
  EXPECT_EQ(broken.status, 1) << broken.out;
  EXPECT_TRUE(has(broken.out, "rmsnorm (NVIDIA B200)") || has(broken.out, "baseline entry NVIDIA B200")) << broken.out;
}

// An ako.baseline/1 file (what was committed before per-device entries) is read as one entry.
TEST_F(GateCli, AVersion1BaselineIsReadAsOneEntry) {
  const fs::path ws = make_workspace("v1");
  auto v2 = read_json(ws / "bench/baseline.json");
  auto v1 = v2["devices"][kH100];
  v1["schema"] = "ako.baseline/1";
  ako::write_file_atomically(ws / "bench/baseline.json", v1.dump(2));
  const Ran r = ako("gate --baseline bench/baseline.json", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "is ako.baseline/1: read as one entry (NVIDIA H100 80GB HBM3)")) << r.out;
  EXPECT_TRUE(has(r.out, "GATE: PASS")) << r.out;
  const Ran up = ako("gate --baseline bench/baseline.json --update-baseline", ws);
  ASSERT_EQ(up.status, 0) << up.out;
  const auto now = read_json(ws / "bench/baseline.json");
  EXPECT_EQ(now["schema"], "ako.baseline/2");
  EXPECT_EQ(now["devices"][kH100]["tasks"]["rmsnorm"]["cases"], v2["devices"][kH100]["tasks"]["rmsnorm"]["cases"]);
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
  ako::write_file_atomically(ws / "v3.json", R"({"schema": "ako.baseline/3", "devices": {}})");
  const Ran schema = ako("gate --baseline v3.json", ws);
  EXPECT_EQ(schema.status, 2);
  EXPECT_TRUE(has(schema.out, "ako.baseline/2")) << schema.out;
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
  b["devices"][kH100]["tasks"]["layernorm"] = b["devices"][kH100]["tasks"]["rmsnorm"];
  ako::write_file_atomically(ws / "bench/baseline.json", b.dump(2));
  const Ran r = ako("gate --baseline bench/baseline.json", ws);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "tasks/layernorm does not exist")) << r.out;
}

}  // namespace
