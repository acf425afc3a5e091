// `ako run task norm_scale_shift` on a real GPU: every compare case and every reference check
// correct; a candidate that reads every [B, F, 1, C] scale / shift at frame 0 is incorrect on
// exactly the per-frame cases with F > 1 (Wan) and correct elsewhere.
#include "norm_fusion_gpu_support.hpp"

namespace ako::gputest {
namespace {

TEST(NormScaleShift, EveryCaseIsCorrectAndTheReferenceMeetsItsOracle) {
  AKO_REQUIRE_GPU();
  const auto [compares, checks] = norm_fusion::expect_all_correct("norm_scale_shift");
  EXPECT_EQ(compares, 2 * 59);  // context/norm_scale_shift.md
  EXPECT_EQ(checks, 4 * 2 * 48);  // every combination on each check shape
}

TEST(NormScaleShift, FrameBlindCandidateIsIncorrectExactlyOnPerFrameCases) {
  AKO_REQUIRE_GPU();
  const int caught = norm_fusion::expect_frame_blind_caught(
      "norm_scale_shift",
      [](const nlohmann::json& c) { return c["axes"]["layout"] == "bf1c" && c["dims"]["F"].get<int>() > 1; }, "y");
  EXPECT_EQ(caught, 4);  // wan13b-480p and wan14b-480p, bf16 and fp16
}

}  // namespace
}  // namespace ako::gputest
