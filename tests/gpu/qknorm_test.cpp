// `ako run task qknorm` on a real GPU: every shape, dtype and form (per head, across heads)
// correct and timed, v untouched (the views' outside is checked bitwise), the reference within
// its fp64 oracle on every check shape, SGLang's fused_inplace_qknorm and FlashInfer's QKRMSNorm
// validated and timed on the per-head cases and FlashInfer's RMSNorm on the across-heads ones,
// where the wheels' files are fetched; the solution's other paths (groups wider than a
// warp, tail rows, Hq != Hk) correct; and a kernel that scales k by q's weight is caught.
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include <unistd.h>

#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

namespace fs = std::filesystem;

bool flashinfer_fetched() { return fs::exists(workspace() / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh"); }

bool sglang_fetched() {
  return fs::exists(workspace() / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/elementwise/qknorm.cuh");
}

TEST(RunQknorm, EveryShapeDtypeAndFormIsCorrect) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("qknorm-full");
  const Ran r = run_ako("run task qknorm --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  std::map<std::string, int> per_shape;
  int checks = 0;
  std::map<std::string, int> baselines_run;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] == "reference_check") {
      ++checks;
      continue;
    }
    per_shape[c["shape"]]++;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0) << c.dump();
    ASSERT_EQ(c["baselines"].size(), 3u) << c.dump();
    const bool across = c["flags"]["across_heads"].get<bool>();
    for (const auto& b : c["baselines"]) {
      // sglang and flashinfer_qk_rmsnorm per head, flashinfer_rmsnorm across heads (every model
      // shape has Hq == Hk)
      const bool applies = b["name"] == "sglang"                  ? !across && sglang_fetched()
                           : b["name"] == "flashinfer_qk_rmsnorm" ? !across && flashinfer_fetched()
                                                                  : across && flashinfer_fetched();
      EXPECT_EQ(b["verdict"], applies ? "correct" : "skipped") << b.dump();
      if (applies) {
        EXPECT_GT(b["time"]["iqm_us"].get<double>(), 0.0) << b.dump();
        ++baselines_run[b["name"].get<std::string>()];
      }
    }
  }
  EXPECT_EQ(per_shape.size(), 6u);
  for (const auto& [shape, n] : per_shape) EXPECT_EQ(n, 4) << shape << ": bf16/fp16 x per head/across heads";
  EXPECT_EQ(checks, 6 * 2 * 2);
  EXPECT_EQ(baselines_run["sglang"], sglang_fetched() ? 6 * 2 : 0);
  EXPECT_EQ(baselines_run["flashinfer_qk_rmsnorm"], flashinfer_fetched() ? 6 * 2 : 0);
  EXPECT_EQ(baselines_run["flashinfer_rmsnorm"], flashinfer_fetched() ? 6 * 2 : 0);
}

// The solution's other paths on small odd shapes: groups of 64 to 512 lanes (shared-memory
// exchange), groups of 8 to 32 lanes, several rows per group with tail rows, Hq != Hk.
TEST(RunQknorm, OtherGroupSizesAndTailsAreCorrect) {
  AKO_REQUIRE_GPU();
  const fs::path ws = test_workspace();
  for (const char* d : {"tasks/qknorm", "input/qknorm", "solution/qknorm"}) {
    fs::create_directories(ws / d);
    fs::copy(workspace() / d, ws / d, fs::copy_options::recursive);
  }
  for (const auto& f : fs::directory_iterator(ws / "solution/qknorm/configs"))
    if (f.path().filename().string().starts_with("device_name=")) fs::remove(f.path());
  // The shapes and configs (tests/fixtures/qknorm/odd_paths.json says what each covers) are the
  // ones the CPU test compiles without spills, so no run here is refused by the static checks.
  const auto odd = read_json(workspace() / "tests/fixtures/qknorm/odd_paths.json");
  auto doc = read_json(ws / "tasks/qknorm/task.json");
  doc.erase("baselines");
  doc["shapes"] = odd["shapes"];
  {
    std::ofstream out(ws / "tasks/qknorm/task.json");
    out << doc.dump(2);
  }
  for (const auto& params : odd["param_sets"]) {
    const nlohmann::json config = {{"schema", "ako.config/1"},
                                   {"classes", {{{"name", "both-forms"}, {"params", params}}}}};
    {
      std::ofstream out(ws / "solution/qknorm/configs/default.json");
      out << config.dump(2);
    }
    const auto json = temp_json("qknorm-paths");
    const Ran r = run_ako("run task qknorm --root '" + ws.string() + "' --no-time --no-checks --json " + json.string());
    EXPECT_EQ(r.status, 0) << config.dump() << "\n" << r.output;
    int n = 0;
    const auto run_json = read_json(json);  // kept: a range-for over a temporary's member dangles
    for (const auto& c : run_json["cases"]) {
      EXPECT_EQ(c["verdict"], "correct") << config.dump() << " " << c.dump();
      ++n;
    }
    EXPECT_EQ(n, 3 * 2 * 2);
  }
  fs::remove_all(ws);
}

TEST(RunQknorm, KScaledByQsWeightIsIncorrect) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("qknorm-broken");
  const Ran r = run_ako("run task qknorm --shapes flux1,ltx-video --no-time --no-checks --solution '" +
                        (workspace() / "tests/tasks/broken/qknorm_k_takes_q_weight.cuh").string() + "' --json " +
                        json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  int caught = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "incorrect") << c.dump();
    EXPECT_NE(c["reason"].get<std::string>().find("'k'"), std::string::npos) << c.dump();
    ++caught;
  }
  EXPECT_EQ(caught, 2 * 2 * 2);
}

}  // namespace
}  // namespace ako::gputest
