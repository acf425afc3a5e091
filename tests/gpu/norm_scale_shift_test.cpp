// `ako run task norm_scale_shift` on a real GPU: every compare case and every reference check
// correct; a candidate that reads every [B, F, 1, C] scale / shift at frame 0 is incorrect on
// exactly the per-frame cases with F > 1 (Wan) and correct elsewhere.
#include "norm_fusion_gpu_support.hpp"

namespace ako::gputest {
namespace {

TEST(NormScaleShift, EveryCaseIsCorrectAndTheReferenceMeetsItsOracle) {
  AKO_REQUIRE_GPU();
  const auto [compares, checks] = norm_fusion::expect_all_correct("norm_scale_shift");
  EXPECT_EQ(compares, 2 * 58);  // context/norm_scale_shift.md
  EXPECT_EQ(checks, 2 * (3 * 48 + 40));  // every combination; per-frame ones where F > 1
}

TEST(NormScaleShift, FrameBlindCandidateIsIncorrectExactlyOnPerFrameCases) {
  AKO_REQUIRE_GPU();
  const int caught = norm_fusion::expect_frame_blind_caught(
      "norm_scale_shift",
      [](const nlohmann::json& c) { return c["axes"]["layout"] == "bf1c" && c["dims"]["F"].get<int>() > 1; }, "y");
  EXPECT_EQ(caught, 2 * (8 + 1));  // every per-frame combination on wan13b-480p, Wan's site on wan14b-480p
}

}  // namespace
}  // namespace ako::gputest
