#pragma once
// Shared by the GPU tests of the two norm-fusion tasks (norm_scale_shift,
// residual_gate_norm_scale_shift): run the task through `ako run`, and the verdicts of the
// frame-blind broken candidate (tests/tasks/broken/norm_fusion_ignores_frames.cuh), which must
// be incorrect exactly where a per-frame tensor meets F > 1.
#include <fstream>
#include <functional>
#include <string>
#include <vector>

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

// TOKENS > 1 (a thread carries several consecutive tokens and reads a broadcast row once for
// them, again where the next token's row is another): a copy of the task whose shapes make the
// token groups straddle batch and frame boundaries and end in a partial group, every axis
// combination the task's `when` allows on them, run with each of `param_sets` (--param ...).
// Every case must be correct and run with the TOKENS asked for. Returns the cases per set.
inline int expect_correct_across_token_groups(const std::string& task, const std::vector<std::string>& param_sets) {
  namespace fs = std::filesystem;
  const fs::path ws = test_workspace();
  // The residual task's input/ and solution/ include the norm_scale_shift task's files.
  for (const std::string& d : {"tasks/" + task, "input/" + task, std::string("input/norm_scale_shift"),
                              std::string("solution/norm_scale_shift"), "solution/" + task}) {
    if (fs::exists(ws / d)) continue;
    fs::create_directories(ws / d);
    fs::copy(workspace() / d, ws / d, fs::copy_options::recursive);
  }
  auto doc = read_json(ws / "tasks" / task / "task.json");
  // 12 tokens in frames of 2 (groups of 4 cross frames and the batch), 15 in batches of 5 (groups
  // cross batches; the last group of 4 holds 3), 9 in frames of 3. L < 64: the `when` of both
  // tasks takes every combination it allows on a small shape.
  doc["shapes"] = nlohmann::json::array({
      {{"name", "b2-l6-f3"}, {"B", 2}, {"L", 6}, {"C", 3072}, {"F", 3}},
      {{"name", "b3-l5"}, {"B", 3}, {"L", 5}, {"C", 3072}, {"F", 1}},
      {{"name", "b1-l9-f3"}, {"B", 1}, {"L", 9}, {"C", 3072}, {"F", 3}},
  });
  {
    std::ofstream out(ws / "tasks" / task / "task.json");
    out << doc.dump(2);
  }
  int cases = -1;
  for (const auto& params : param_sets) {
    const auto json = temp_json(task + "-tokens");
    const Ran r = run_ako("run task " + task + " --root '" + ws.string() + "' --no-time --no-checks " + params +
                          " --case-timeout 60 --json " + json.string());
    EXPECT_EQ(r.status, 0) << params << "\n" << r.output;
    const auto j = read_json(json);
    const int tokens = std::stoi(params.substr(params.find("TOKENS=") + 7));
    int n = 0;
    for (const auto& c : j["cases"]) {
      if (c["kind"] != "compare") continue;
      ++n;
      EXPECT_EQ(c["verdict"], "correct") << params << " " << c.dump();
      EXPECT_EQ(c["params"]["TOKENS"], tokens) << c.dump();
    }
    if (cases >= 0) {
      EXPECT_EQ(n, cases) << params;
    }
    cases = n;
  }
  fs::remove_all(ws);
  return cases;
}

}  // namespace ako::gputest::norm_fusion
