// `ako run task qknorm_rope` on a real GPU: every case correct and timed, the reference meets its
// fp64 oracle on every check shape, SGLang's fused kernel (the "sglang" baseline) correct and timed
// on every case; the solution's other lane widths and head counts per group
// correct on the small shapes; and a candidate that skips the weight is caught.
#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

bool sglang_fetched() {
  return std::filesystem::exists(workspace() / "peers/sglang-0.5.23/sglang/kernels/jit/csrc/diffusion/qknorm_rope.cuh");
}

TEST(RunQknormRope, EveryCaseIsCorrectAndTheReferenceMeetsItsOracle) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("qknorm-rope-full");
  const Ran r = run_ako("run task qknorm_rope --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  int compares = 0, checks = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] == "reference_check") {
      ++checks;
      continue;
    }
    ++compares;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0) << c.dump();
    ASSERT_EQ(c["baselines"].size(), 1u) << c.dump();
    const auto& b = c["baselines"][0];
    EXPECT_EQ(b["verdict"], sglang_fetched() ? "correct" : "skipped") << b.dump();
    if (sglang_fetched()) {
      EXPECT_GT(b["time"]["iqm_us"].get<double>(), 0.0) << b.dump();
    }
  }
  EXPECT_EQ(compares, 42);
  EXPECT_EQ(checks, 24);
}

// Whole warps of 4-element lanes, one head per group, 128-thread blocks; 4 heads per group
// (partial-r64's 2H = 10 heads per token: groups straddle tokens, so the cos/sin slice cannot
// always be shared), with the slice loaded after and before the reduction; the token-split
// layout with SPLIT not dividing 2H (10 and 8 heads in 3 parts of 4 and 3 steps, 2 heads per step:
// the masked heads past 2H and past a group's steps), pipelined too, and with one group per token;
// and through the cp.async ring (ASYNC): 2 heads a step in 3 slots, whose refills run past the
// group's last step (empty groups, zero-filled dead heads), and 8-byte copies (EPL 4) in 4 slots
// that wrap around the ring several times (10 steps a group).
TEST(RunQknormRope, OtherLaneWidthsAndHeadsPerGroupAreCorrect) {
  AKO_REQUIRE_GPU();
  for (const char* params : {"--param LANES=32 --param EPL=4 --param HPG=1 --param BLOCK=128 --param REGS=0", "--param HPG=4 --param REGS=0",
                             "--param HPG=4 --param REGS=0",
                             "--param LANES=32 --param EPL=4 --param HPG=2 --param REGS=0",
                             "--param SPLIT=3 --param HPG=2 --param REGS=0",
                             "--param SPLIT=3 --param HPG=2 --param PIPE=1 --param REGS=0",
                             "--param SPLIT=1 --param LANES=32 --param EPL=4 --param HPG=1 --param REGS=0",
                             "--param SPLIT=3 --param HPG=2 --param PIPE=0 --param ASYNC=2 --param REGS=0",
                             "--param SPLIT=1 --param LANES=32 --param EPL=4 --param HPG=1 --param PIPE=0 --param ASYNC=3 --param REGS=0"}) {
    const auto json = temp_json("qknorm-rope-params");
    const Ran r = run_ako(std::string("run task qknorm_rope --shapes partial-r64,neox-r32 ") + params +
                          " --no-time --no-checks --json " + json.string());
    EXPECT_EQ(r.status, 0) << params << "\n" << r.output;
    const auto j = read_json(json);
    EXPECT_EQ(j["cases"].size(), 2u * 2 * 4) << params;
    for (const auto& c : j["cases"]) EXPECT_EQ(c["verdict"], "correct") << params << "\n" << c.dump();
  }
}

TEST(RunQknormRope, SkippingTheWeightIsIncorrect) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("qknorm-rope-broken");
  const Ran r = run_ako("run task qknorm_rope --shapes flux1,partial-r64 --no-time --no-checks --solution '" +
                        (workspace() / "tests/tasks/broken/qknorm_rope_skips_weight.cuh").string() + "' --json " +
                        json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  EXPECT_EQ(j["cases"].size(), 2u + 2 * 4);
  for (const auto& c : j["cases"]) EXPECT_EQ(c["verdict"], "incorrect") << c.dump();
}

}  // namespace
}  // namespace ako::gputest
