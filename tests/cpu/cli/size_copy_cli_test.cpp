// `ako run --size-copy` on a machine without a GPU: the fake driver and worker
// (tests/support/fake_gpu/) stand in for the GPU, the worker timing the copy 0.9x the
// solution's time when the job asks for it. The job asks only with the flag; the table gains
// the copy's columns, the summary its SIZE COPY line, the JSON the copy's timing and the
// solution's % of it; without the flag none of them appear; --no-time and the flag conflict.
#include <gtest/gtest.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../ako_cli_support.hpp"
#include "inplace_scale_workspace.hpp"
#include "common/atomic_file.hpp"

namespace {

namespace fs = std::filesystem;
using ako::testsupport::has;
using ako::testsupport::Ran;
using ako::testsupport::run_shell;
using nlohmann::json;

class SizeCopyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-size-copy-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ws_ = dir_ / "ws";
    ako::testsupport::copy_inplace_scale(ws_, {256});
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }

  Ran run(const std::string& args) const {
    const char* ld = std::getenv("LD_LIBRARY_PATH");
    const std::string vars = fmt::format(
        "AKO_CACHE_DIR='{}' TMPDIR='{}' AKO_WORKER='{}' AKO_FAKE_WORKER_CASE_MS=5 LD_LIBRARY_PATH='{}{}' ",
        (dir_ / "cache").string(), dir_.string(), AKO_FAKE_WORKER, AKO_FAKE_CUDA_DIR,
        ld && *ld ? std::string(":") + ld : "");
    return run_shell("cd '" + ws_.string() + "' && " + vars + " '" AKO_BINARY_DIR
                     "/ako' run task inplace_scale --no-progress --color never --json '" + json_path().string() +
                     "' " + args);
  }
  fs::path json_path() const { return dir_ / "run.json"; }
  json result() const { return json::parse(ako::read_file(json_path())); }

  fs::path dir_, ws_;
};

TEST_F(SizeCopyCli, TheFlagAddsTheCopyColumnsTheSummaryLineAndTheJson) {
  const Ran r = run("--size-copy");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "copy us")) << r.out;
  EXPECT_TRUE(has(r.out, "%size")) << r.out;
  EXPECT_TRUE(has(r.out, "SIZE COPY: solution at 90.0% of a copy of its own bytes (geomean over")) << r.out;
  const json j = result();
  EXPECT_EQ(j["options"]["size_copy"], true);
  int compared = 0;
  for (const json& c : j["cases"]) {
    if (c["kind"] != "compare") continue;
    ++compared;
    ASSERT_FALSE(c["size_copy_time"].is_null()) << c.dump();
    EXPECT_NEAR(c["size_copy_time"]["iqm_us"].get<double>(), 0.9 * c["solution_time"]["iqm_us"].get<double>(), 1e-9);
    EXPECT_NEAR(c["pct_size_copy"].get<double>(), 90.0, 1e-9);
  }
  EXPECT_GT(compared, 0);
}

TEST_F(SizeCopyCli, WithoutTheFlagNothingIsTimedOrShown) {
  const Ran r = run("");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(has(r.out, "copy us")) << r.out;
  EXPECT_FALSE(has(r.out, "SIZE COPY")) << r.out;
  const json j = result();
  EXPECT_EQ(j["options"]["size_copy"], false);
  for (const json& c : j["cases"]) {
    EXPECT_TRUE(c["size_copy_time"].is_null()) << c.dump();
    EXPECT_EQ(c["pct_size_copy"], 0);
  }
}

TEST_F(SizeCopyCli, NoTimeAndSizeCopyConflict) {
  const Ran r = run("--size-copy --no-time");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--no-time excludes --size-copy")) << r.out;
}

}  // namespace
