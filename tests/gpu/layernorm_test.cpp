// `ako run task layernorm` on a real GPU: every shape, dtype and form correct and timed, the
// reference meets its fp64 oracle, FlashInfer's LayerNorm validated where installed; the
// solution's other paths (narrow accesses, several rows per block, padded chunks, the streamed
// path) correct on odd widths; and a LayerNorm that takes the variance around zero is caught.
#include <fstream>
#include <map>
#include <tuple>
#include <vector>

#include "gpu_test_support.hpp"

namespace ako::gputest {
namespace {

namespace fs = std::filesystem;

bool flashinfer_installed() {
  return fs::exists(workspace() / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh");
}

TEST(RunLayernorm, EveryShapeDtypeAndFormIsCorrect) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("layernorm-full");
  const Ran r = run_ako("run task layernorm --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CORRECT: yes"), std::string::npos) << r.output;
  const auto j = read_json(json);
  std::map<std::string, int> per_shape;
  int checks = 0, baselines_run = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "correct") << c.dump();
    if (c["kind"] == "reference_check") {
      ++checks;
      continue;
    }
    per_shape[c["shape"]]++;
    EXPECT_GT(c["solution_time"]["iqm_us"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["reference_time"]["iqm_us"].get<double>(), 0) << c.dump();
    ASSERT_EQ(c["baselines"].size(), 1u) << c.dump();
    const auto& b = c["baselines"][0];
    const bool applies = c["flags"]["affine"].get<bool>() && flashinfer_installed();
    EXPECT_EQ(b["verdict"], applies ? "correct" : "skipped") << b.dump();
    if (applies) {
      EXPECT_GT(b["time"]["iqm_us"].get<double>(), 0.0) << b.dump();
      ++baselines_run;
    }
  }
  EXPECT_EQ(per_shape.size(), 10u);
  for (const auto& [shape, n] : per_shape) EXPECT_EQ(n, 6) << shape << ": bf16/fp16/fp32 x affine/noaffine";
  EXPECT_EQ(checks, 8 * 3 * 2);
  if (flashinfer_installed()) {
    EXPECT_EQ(baselines_run, 10 * 3);
  }
}

// A copy of the task whose shapes take every other path of the solution under the shipped
// default.json, with the weight and bias read either way (WB_EARLY) and every chunk bounds-tested
// or not (SURE): odd widths (VEC 1, 2, 4), several rows per block with tail rows, a last chunk past
// the row (padding left out of the variance), widths past the register cache (the streamed path)
// and the widest cached class.
TEST(RunLayernorm, OddWidthsTakeEveryPathAndAreCorrect) {
  AKO_REQUIRE_GPU();
  const fs::path ws = fs::temp_directory_path() / "ako-gpu-layernorm-odd";
  fs::remove_all(ws);
  for (const char* d : {"tasks/layernorm", "input/layernorm", "solution/layernorm"}) {
    fs::create_directories(ws / d);
    fs::copy(workspace() / d, ws / d, fs::copy_options::recursive);
  }
  // default.json's width classes, whatever a device's tuned file holds (a tune per shape makes
  // the odd widths take the nearest tuned shape's class instead).
  for (const auto& f : fs::directory_iterator(ws / "solution/layernorm/configs"))
    if (f.path().filename().string().starts_with("device_name=")) fs::remove(f.path());
  auto doc = read_json(ws / "tasks/layernorm/task.json");
  doc["shapes"] = nlohmann::json::array();
  const std::vector<std::tuple<const char*, int, int, const char*>> shapes = {
      {"odd-37x3001", 37, 3001, "cols-odd"},           {"mult2-5x1030", 5, 1030, "cols-mult-2"},
      {"mult4-9x100", 9, 100, "cols-mult-4"},          {"narrow-1001x128", 1001, 128, "cols-128"},
      {"narrow-333x256", 333, 256, "cols-256"},        {"padded-517x1000", 517, 1000, "cols-1024"},
      {"mid-7x4000", 7, 4000, "cols-4096"},            {"wide-3x16384", 3, 16384, "default"},
      {"wide-5x10000", 5, 10000, "default"},           {"streamed-2x40000", 2, 40000, "default"}};
  std::map<std::string, std::string> expected_class;
  for (const auto& [name, rows, cols, cls] : shapes) {
    doc["shapes"].push_back({{"name", name}, {"rows", rows}, {"cols", cols}});
    expected_class[name] = cls;
  }
  doc.erase("baselines");  // the solution's paths are under test here
  {
    std::ofstream out(ws / "tasks/layernorm/task.json");
    out << doc.dump(2);
  }
  // Five times: weight and bias read at the store, then loaded with x (WB_EARLY 1: held across
  // the reductions, zeros past the row and on tail rows), then both statistics in one reduction
  // (STATS 1: where the row fills every thread's chunks; the other widths fall back to two), then
  // without the bounds test on the chunks the constraint keeps in the row (SURE 1: tail rows, a
  // last chunk past the row), alone and with WB_EARLY.
  for (const std::string extra : {"", " --param WB_EARLY=1", " --param STATS=1", " --param SURE=1",
                                  " --param SURE=1 --param WB_EARLY=1"}) {
    const auto json = temp_json("layernorm-odd");
    const Ran r =
        run_ako("run task layernorm --root '" + ws.string() + "' --no-time --no-checks" + extra + " --json " + json.string());
    EXPECT_EQ(r.status, 0) << extra << "\n" << r.output;
    const auto j = read_json(json);
    int n = 0;
    for (const auto& c : j["cases"]) {
      ++n;
      EXPECT_EQ(c["verdict"], "correct") << extra << " " << c.dump();
      EXPECT_EQ(c["config_class"], expected_class[c["shape"].get<std::string>()]) << c.dump();
    }
    EXPECT_EQ(n, 10 * 3 * 2) << extra;
  }
  fs::remove_all(ws);
}

// Rows over whole warps whose count is not a power of two (3, 6, 12, 15 warps a row), whose
// partials every thread merges in turn: exact fits with one reduction (STATS 1), rows padded past
// the width, two rows a block, and the streamed path, each case against its reference.
TEST(RunLayernorm, RowsOfAnyWholeWarpCountAreCorrect) {
  AKO_REQUIRE_GPU();
  const std::vector<std::pair<std::string, std::string>> runs = {
      // 480 threads: zimage exact (15 warps), text-512 and wan13b padded past the row
      {"text-512,zimage,wan13b-480p", "--param BLOCK=480 --param VEC=8 --param CHUNKS=1 --param STATS=1"},
      // 192 threads: text-512 exact (6 warps, one reduction), flux2-single's 6144 on the streamed path
      {"text-512,flux2-single", "--param BLOCK=192 --param VEC=8 --param CHUNKS=2 --param STATS=1 --param SURE=1"},
      // two rows of 192 threads a block: text-512 exact, wan14b streamed
      {"text-512,wan14b-480p", "--param BLOCK=384 --param ROWS_PER_BLOCK=2 --param VEC=8 --param CHUNKS=2 --param STATS=1"},
      // 96 threads (3 warps) of 4-element chunks: wan13b exact, text-512-cfg streamed
      {"text-512-cfg,wan13b-480p", "--param BLOCK=96 --param VEC=4 --param CHUNKS=4 --param STATS=1"}};
  for (const auto& [shapes, params] : runs) {
    const auto json = temp_json("layernorm-warps");
    const Ran r = run_ako("run task layernorm --shapes " + shapes + " " + params + " --no-time --no-checks --json " +
                          json.string());
    EXPECT_EQ(r.status, 0) << params << "\n" << r.output;
    const auto j = read_json(json);
    EXPECT_GE(j["cases"].size(), 10u) << params;
    for (const auto& c : j["cases"]) EXPECT_EQ(c["verdict"], "correct") << params << " " << c.dump();
  }
}

// The task's own widths with the row forced off the register cache (128 threads of 1 chunk):
// the streamed three-pass path on 16-byte accesses.
TEST(RunLayernorm, StreamedPathIsCorrectOnTheTaskWidths) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("layernorm-streamed");
  const Ran r = run_ako(
      "run task layernorm --shapes text-512,zimage,wan14b-480p --param BLOCK=128 --param VEC=8 "
      "--param ROWS_PER_BLOCK=1 --param CHUNKS=1 --no-time --no-checks --json " +
      json.string());
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = read_json(json);
  EXPECT_EQ(j["cases"].size(), 3u * 3 * 2);
  for (const auto& c : j["cases"]) EXPECT_EQ(c["verdict"], "correct") << c.dump();
}

TEST(RunLayernorm, VarianceAroundZeroIsIncorrect) {
  AKO_REQUIRE_GPU();
  const auto json = temp_json("layernorm-broken");
  const Ran r = run_ako("run task layernorm --shapes text-512,wan13b-480p --no-time --no-checks --solution '" +
                        (workspace() / "tests/tasks/broken/layernorm_variance_around_zero.cuh").string() +
                        "' --json " + json.string());
  EXPECT_EQ(r.status, 1) << r.output;
  const auto j = read_json(json);
  int caught = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["verdict"], "incorrect") << c.dump();
    EXPECT_NE(c["reason"].get<std::string>().find("'out'"), std::string::npos) << c.dump();
    ++caught;
  }
  EXPECT_EQ(caught, 2 * 3 * 2);
}

}  // namespace
}  // namespace ako::gputest
