// ako mirror on a throw-away SGLang-layout engine: provenance, files, NVRTC check, refusals.
#include <gtest/gtest.h>

#include <algorithm>

#include "cpu/port/engine_fixture.hpp"
#include "common/error.hpp"
#include "port/mirror.hpp"

namespace ako::port {
namespace {

using testing::EngineFixture;
using testing::kMirrorPath;
using testing::slurp;

class Mirror : public EngineFixture {
 protected:
  MirrorOptions options() {
    MirrorOptions o;
    o.workspace = ws;
    o.engine = engine;
    o.task = "rmsnorm";
    o.path = kMirrorPath;
    return o;
  }
};

TEST_F(Mirror, RecordsCommitPathAndHashAndKeepsTheEngineFileVerbatim) {
  const MirrorResult r = mirror_kernel(options());
  const auto saved = load_provenance(ws / "solution/rmsnorm/provenance.json");
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->mirrored.commit, head());
  EXPECT_EQ(saved->mirrored.path, kMirrorPath);
  EXPECT_EQ(saved->mirrored.sha256, sha256_of(testing::kEngineKernel));
  EXPECT_EQ(saved->engine_profile, "sglang");  // the task's port.engine
  ASSERT_EQ(saved->host_glue.size(), 1u);
  EXPECT_EQ(saved->host_glue[0].name, "ToyRMSNormKernel");
  EXPECT_EQ(slurp(ws / saved->verbatim_copy), testing::kEngineKernel);
  const std::string device = slurp(ws / saved->device_copy);
  EXPECT_NE(device.find("#include <sgl_kernel/utils.cuh>"), std::string::npos);  // the engine's device header stays
  EXPECT_EQ(device.find("#include <sgl_kernel/tensor.h>"), std::string::npos);   // host-only: dropped
  EXPECT_NE(device.find(head()), std::string::npos);  // the header names the commit
}

TEST_F(Mirror, RecordsTheEngineHeadersTheDevicePartReachesWithTheirHashes) {
  mirror_kernel(options());
  const auto saved = load_provenance(ws / "solution/rmsnorm/provenance.json");
  ASSERT_TRUE(saved);
  // utils.cuh by <...> through the include root, warp.cuh by "..." beside it; the host-side
  // sgl_kernel/utils.h it includes is the overlay's stand-in, not the engine's: not recorded.
  ASSERT_EQ(saved->engine_headers.size(), 2u);
  EXPECT_EQ(saved->engine_headers[0].path, testing::kHelpersPath);
  EXPECT_EQ(saved->engine_headers[0].sha256, sha256_of(testing::kEngineHelpers));
  EXPECT_EQ(saved->engine_headers[0].commit, head());
  EXPECT_EQ(saved->engine_headers[1].path, testing::kWarpPath);
  EXPECT_EQ(saved->engine_headers[1].sha256, sha256_of(testing::kEngineWarp));
}

TEST_F(Mirror, TheDevicePartCompilesWithNvrtcAgainstTheEnginesOwnHeaders) {
  const MirrorResult r = mirror_kernel(options());
  EXPECT_TRUE(r.compile_checked);
  EXPECT_TRUE(r.compiled) << r.compile_log;
  const auto& opts = r.provenance.nvrtc_options;
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-I" + (engine / "python/sglang/jit_kernel/include").string()), opts.end());
}

TEST_F(Mirror, WithoutTheOverlaysNvrtcCannotParseTheHostSideHeaders) {
  // The same profile minus its overlays: <cstdint> and <sgl_kernel/utils.h> resolve nowhere.
  std::string profile = slurp(ws / "engines/sglang.json");
  const size_t at = profile.find("\"nvrtc_overlays\"");
  ASSERT_NE(at, std::string::npos);
  profile.erase(at, profile.find('\n', at) + 1 - at);
  testing::write_text(ws / "engines/bare.json", profile);
  MirrorOptions o = options();
  o.profile = "bare";
  const MirrorResult r = mirror_kernel(o);
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.compile_log.find("sgl_kernel/utils.h"), std::string::npos) << r.compile_log;
}

TEST_F(Mirror, RefusesAnEngineHeaderWithUncommittedChanges) {
  testing::write_text(engine / testing::kWarpPath, std::string(testing::kEngineWarp) + "// local edit\n");
  try {
    mirror_kernel(options());
    FAIL() << "compiled against a header no commit holds";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(testing::kWarpPath), std::string::npos) << e.what();
  }
}

TEST_F(Mirror, ADevicePartBeyondTheEnginesHeadersIsReportedNotHidden) {
  testing::write_text(engine / kMirrorPath,
                      std::string(testing::kEngineKernel) +
                          "__global__ void uses_tile(float* p) { tile::Memory<float> m{p, 1}; (void)m; }\n");
  git(engine, "commit -qam 'use tile'");
  const MirrorResult r = mirror_kernel(options());
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.compile_log.find("tile"), std::string::npos) << r.compile_log;
}

TEST_F(Mirror, RefusesAnEngineFileWithUncommittedChanges) {
  testing::write_text(engine / kMirrorPath, std::string(testing::kEngineKernel) + "// local edit\n");
  try {
    mirror_kernel(options());
    FAIL() << "mirrored a file no commit holds";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("uncommitted changes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(kMirrorPath), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(ws / "solution/rmsnorm/provenance.json"));
}

TEST_F(Mirror, NamesTheMissingFileAndTheProfile) {
  MirrorOptions o = options();
  o.path = "python/sglang/jit_kernel/csrc/elementwise/nope.cuh";
  try {
    mirror_kernel(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.cuh"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--engine-profile"), std::string::npos);
  }
  o.path = kMirrorPath;
  o.profile = "no-such-engine";
  EXPECT_THROW(mirror_kernel(o), Error);
}

}  // namespace
}  // namespace ako::port
