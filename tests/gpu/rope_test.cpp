// `ako run task rope` on a real GPU: every case correct and timed, the reference meets its fp64
// oracle on every check shape, FlashInfer's kernels validated where they apply and are
// installed; the solution's other head-group and block choices correct on the small shapes;
// and two wrong candidates caught: the other pairing (interleaved vs NeoX) and a rotation of the
// whole head when R < D (pass-through elements changed).
#include <map>
#include <set>

#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

namespace fs = std::filesystem;

bool flashinfer_installed() {
  return fs::exists(workspace() / "peers/flashinfer-python-0.7.2/include/flashinfer/pos_enc.cuh");
}

TEST(RunRope, EveryCaseIsCorrectAndTheReferenceMeetsItsOracle) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("rope-full");
  const Ran r = run_ako("run task rope --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  int compares = 0, checks = 0, baselines_run = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] == "reference_check") {
      ++checks;
      continue;
    }
    ++compares;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0) << c.dump();
    ASSERT_EQ(c["baselines"].size(), 2u) << c.dump();
    int applied = 0;
    for (const auto& b : c["baselines"]) {
      if (b["verdict"] == "skipped") continue;
      EXPECT_EQ(b["verdict"], "correct") << b.dump();
      ++applied;
    }
    // One of the two FlashInfer kernels for D in {64, 128, 256}, as its launcher picks; R % 16:
    // its 16-byte loads of a NeoX second half (context/rope.md).
    const int D = c["dims"]["D"].get<int>(), R = c["dims"]["R"].get<int>();
    const bool fast_path = (D == 64 || D == 128 || D == 256) && R % 16 == 0;
    EXPECT_EQ(applied, flashinfer_installed() && fast_path ? 1 : 0) << c.dump();
    baselines_run += applied;
  }
  EXPECT_EQ(compares, 48);
  EXPECT_EQ(checks, 32);
  if (flashinfer_installed()) {
    EXPECT_EQ(baselines_run, 48 - 16) << "odd-r36-d96 (D = 96) and partial-r40 (R = 40) have no FlashInfer fast path";
  }
}

// The small shapes with other head groupings, blocks and streaming hints than default.json's:
// a head group that does not divide H (tail heads: H = 3, 5, 7), 4-byte chunks of all H heads
// per thread in 1024-thread blocks.
TEST(RunRope, OtherHeadGroupsAndBlocksAreCorrect) {
  AKO_REQUIRE_GPU();
  for (const char* params : {"--param HPT=2 --param BLOCK=64 --param CS=1", "--param VEC=2 --param HPT=1 --param BLOCK=1024"}) {
    const auto json = temp_json("rope-params");
    const Ran r = run_ako(std::string("run task rope --shapes partial-r64,partial-r40,odd-r36-d96,d256 ") + params +
                          " --no-time --no-checks --json " + json.string());
    EXPECT_EQ(r.status, 0) << params << "\n" << r.output;
    const auto j = read_json(json);
    EXPECT_EQ(j["cases"].size(), 4u * 2 * 4) << params;
    for (const auto& c : j["cases"]) EXPECT_EQ(c["verdict"], "correct") << params << "\n" << c.dump();
  }
}

// Runs the broken candidate on `shapes` and expects every case incorrect, naming q or k.
void expect_caught(const std::string& broken, const std::string& shapes, size_t cases) {
  const auto json = temp_json("rope-broken");
  const Ran r = run_ako("run task rope --shapes " + shapes + " --no-time --no-checks --solution '" +
                        (workspace() / "tests/tasks/broken" / broken).string() + "' --json " + json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  EXPECT_EQ(j["cases"].size(), cases);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "incorrect") << c.dump();
    const std::string reason = c["reason"].get<std::string>();
    EXPECT_TRUE(reason.find("'q'") != std::string::npos || reason.find("'k'") != std::string::npos) << c.dump();
  }
}

TEST(RunRope, TheOtherPairingIsIncorrect) {
  AKO_REQUIRE_GPU();
  expect_caught("rope_wrong_pairing.cuh", "flux1,ltx2-video,partial-r40", 2 + 2 + 2 * 4);
}

TEST(RunRope, RotatingPastRIsIncorrect) {
  AKO_REQUIRE_GPU();
  expect_caught("rope_rotates_whole_head.cuh", "partial-r64,partial-r40,odd-r36-d96", 3 * 2 * 4);
}

}  // namespace
}  // namespace ako::gputest
