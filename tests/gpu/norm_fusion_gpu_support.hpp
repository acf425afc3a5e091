#pragma once
// Shared by the GPU tests of the two norm-fusion tasks (norm_scale_shift,
// residual_gate_norm_scale_shift): run the task through `ako run`, and the verdicts of the
// frame-blind broken candidate (tests/tasks/broken/norm_fusion_ignores_frames.cuh), which must
// be incorrect exactly where a per-frame tensor meets F > 1.
#include <functional>
#include <string>

#include "gpu_test_support.hpp"

namespace ako::gputest::norm_fusion {

inline const char* const kFrameBlind = "tests/tasks/broken/norm_fusion_ignores_frames.cuh";

// Every case correct (compare and reference_check) and timed; returns {compare, checks}.
inline std::pair<int, int> expect_all_correct(const std::string& task) {
  const auto json = temp_json(task + "-full");
  const Ran r = run_ako("run task " + task + " --case-timeout 60 --json " + json.string());
  EXPECT_EQ(r.status, 0) << r.output;
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
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0.0) << c.dump();
    EXPECT_GT(c["bytes"].get<double>(), 0.0) << c.dump();
  }
  return {compares, checks};
}

// The frame-blind candidate: incorrect, naming `wrong_buffer`, on the compare
// cases `per_frame(case)` selects; correct on every other but those `ignored(case)` selects
// (wrong for another reason another test checks). Returns how many it caught.
template <typename PerFrame>
int expect_frame_blind_caught(const std::string& task, PerFrame per_frame, const std::string& wrong_buffer,
                              const std::function<bool(const nlohmann::json&)>& ignored = {}) {
  const auto json = temp_json(task + "-frame-blind");
  const Ran r = run_ako("run task " + task + " --no-time --no-checks --case-timeout 60 --solution " + kFrameBlind +
                        " --json " + json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  EXPECT_TRUE(j.contains("cases") && !j["cases"].empty()) << r.output;
  int caught = 0;
  for (const auto& c : j["cases"]) {
    if (c["kind"] != "compare") continue;
    if (!per_frame(c) && ignored && ignored(c)) continue;
    if (per_frame(c)) {
      ++caught;
      EXPECT_EQ(c["verdict"], "incorrect") << c.dump();
      EXPECT_NE(c["reason"].get<std::string>().find("'" + wrong_buffer + "'"), std::string::npos) << c.dump();
    } else {
      EXPECT_EQ(c["verdict"], "correct") << c.dump();
    }
  }
  return caught;
}

}  // namespace ako::gputest::norm_fusion
