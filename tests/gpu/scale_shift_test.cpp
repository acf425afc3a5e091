// `ako run task scale_shift` on a real GPU (context/scale_shift.md): every case correct and
// timed, every reference within its fp64 oracle; the solution's narrow vector widths and its
// row and column tails correct through --param; a candidate that ignores the frame index is
// caught on exactly the per-frame cases.
#include <map>

#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

Ran run_scale_shift(const std::string& extra, const std::filesystem::path& json) {
  return run_ako("run task scale_shift --case-timeout 60 " + extra + " --json " + json.string());
}

std::string layout_of(const nlohmann::json& c) { return c["axes"].value("layout", ""); }

TEST(ScaleShift, EveryCaseIsCorrectAndEveryReferenceMeetsItsOracle) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("scale-shift-full");
  const Ran r = run_scale_shift("", json);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  std::map<std::string, int> per_layout;
  int checks = 0, compares = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] == "reference_check") {
      ++checks;
      continue;
    }
    ++compares;
    per_layout[layout_of(c)]++;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0.0) << c.dump();
    EXPECT_GT(c["reference_time"]["iqm_us"].get<double>(), 0.0) << c.dump();
    EXPECT_GT(c["bytes"].get<double>(), 0.0) << c.dump();
  }
  EXPECT_EQ(compares, 158);  // the when rule of context/scale_shift.md
  EXPECT_EQ(checks, 96);
  EXPECT_EQ(per_layout.size(), 6u);
}

// The default config uses VEC = 8 and widths that split evenly; these runs take the other paths:
// 2- and 4-byte accesses (fp32 scale/shift at 8 and 4 bytes), eight rows in flight, threads
// past the row's end (C / VEC not a multiple of TX) and partial row tiles (qwen-image's 6889
// rows), on the B = 2 shape where every layout's batch index matters; x (and blc's rows) through
// the read-only cache (ROW_CACHE 1) as well as evict-first.
TEST(ScaleShift, NarrowVectorsAndRaggedTilesAreCorrect) {
  AKO_REQUIRE_GPU();
  for (const char* params : {"--param VEC=1 --param ROWS_PER_THREAD=8", "--param VEC=2 --param TX=96 --param ROW_CACHE=1",
                             "--param VEC=4 --param TX=256 --param TY=2 --param ROWS_PER_THREAD=1", "--param TX=256 --param TY=4"}) {
    const auto json = temp_json("scale-shift-params");
    const Ran r = run_scale_shift(std::string("--no-time --no-checks --shapes text-512-cfg,qwen-image,zimage,wan13b-480p ") +
                                      params,
                                  json);
    EXPECT_EQ(r.status, 0) << params << "\n" << r.output;
    const auto run_json = read_json(json);  // kept: a range-for over a temporary's member dangles
    for (const auto& c : run_json["cases"]) EXPECT_EQ(c["verdict"], "correct") << params << " " << c.dump();
  }
}

TEST(ScaleShift, ACandidateIgnoringTheFrameIndexIsIncorrectOnEveryPerFrameCase) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("scale-shift-ignores-frame");
  const Ran r = run_scale_shift("--no-time --no-checks --shapes wan13b-480p,hunyuan-720p --solution '" +
                                    (workspace() / "tests/tasks/broken/scale_shift_ignores_frame.cuh").string() + "'",
                                json);
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  ASSERT_TRUE(j.contains("cases") && !j["cases"].empty()) << r.output;
  int per_frame = 0;
  for (const auto& c : j["cases"]) {
    if (layout_of(c) == "bf1c") {
      ++per_frame;
      EXPECT_EQ(c["verdict"], "incorrect") << c.dump();
      EXPECT_NE(c["reason"].get<std::string>().find("'y'"), std::string::npos) << c.dump();
    } else {
      EXPECT_EQ(c["verdict"], "correct") << c.dump();
    }
  }
  EXPECT_EQ(per_frame, 4);  // 2 shapes x 2 dtypes, fp32 modulation
}

}  // namespace
}  // namespace ako::gputest
