// Per-device configs through the real binary on a machine without a GPU: which config `ako
// compile` and `ako run` use and the line that says so, --device picking a device's file (or
// falling back to default.json, said), the run JSON's record of it, and the old single-file
// layout refused with the conversion.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "exec/client/gpu_probe.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;

Ran ako(const std::string& args, const fs::path& cwd) { return ako::testsupport::run_ako(args, cwd); }

// A throw-away workspace with the real task and an H200 config that differs from the H100's in
// one class (3072 columns: BLOCK 512, ROWS_PER_BLOCK 4), so the builds show which file was used.
fs::path make_workspace(const std::string& name) {
  const fs::path ws = ako::testsupport::copy_workspace("devcfg-" + name);
  std::string h200 = ako::read_file(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json");
  const std::string c3072 = R"("BLOCK": 256, "VEC": 8, "ROWS_PER_BLOCK": 2, "CHUNKS": 3)";
  h200.replace(h200.find(c3072), c3072.size(), R"("BLOCK": 512, "VEC": 8, "ROWS_PER_BLOCK": 4, "CHUNKS": 3)");
  ako::write_file_atomically(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H200.json", h200);
  return ws;
}

const std::string kH200Kernel = "rmsnorm_kernel<__nv_bfloat16, true, 512, 8, 4, 3>";
const std::string kHandKernel = "rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 2, 3>";

class DeviceConfigCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ako::exec::probe_gpu().available) GTEST_SKIP() << "a GPU is present; these tests are for GPU-less machines";
  }
};

TEST_F(DeviceConfigCli, WithoutGpuOrDeviceCompileUsesDefaultAndSaysHowToPickOne) {
  const fs::path ws = make_workspace("none");
  const Ran r = ako("compile task rmsnorm --shapes flux1-single --dtypes bf16", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "config: solution/rmsnorm/configs/default.json (no GPU and no --device; --device NAME picks "
                         "a device's config)"))
      << r.out;
  EXPECT_TRUE(has(r.out, kHandKernel)) << r.out;
}

TEST_F(DeviceConfigCli, DeviceOptionCompilesThatDevicesConfig) {
  const fs::path ws = make_workspace("h200");
  const Ran r = ako("compile task rmsnorm --shapes flux1-single --dtypes bf16 --device \"NVIDIA H200\"", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "config: solution/rmsnorm/configs/device_name=NVIDIA_H200.json (the config for NVIDIA H200, "
                         "named by --device)"))
      << r.out;
  EXPECT_TRUE(has(r.out, kH200Kernel)) << r.out;
  EXPECT_FALSE(has(r.out, kHandKernel)) << r.out;

  const Ran underscored = ako("compile task rmsnorm --shapes flux1-single --dtypes bf16 --device NVIDIA_H200", ws);
  EXPECT_TRUE(has(underscored.out, kH200Kernel)) << underscored.out;
}

TEST_F(DeviceConfigCli, AnUnknownDeviceFallsBackToDefaultAndNamesTheFilesThereAre) {
  const fs::path ws = make_workspace("unknown");
  const Ran r = ako("compile task rmsnorm --shapes flux1-single --dtypes bf16 --device \"NVIDIA B200\"", ws);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "config: no tuned config for NVIDIA B200 in solution/rmsnorm/configs/ (device files: NVIDIA "
                         "H100 80GB HBM3, NVIDIA H200); using default.json"))
      << r.out;
  EXPECT_TRUE(has(r.out, kHandKernel)) << r.out;
}

TEST_F(DeviceConfigCli, TheRunJsonRecordsTheConfigFileAndTheFallback) {
  const fs::path ws = make_workspace("json");
  const Ran r = ako("run task rmsnorm --shapes flux1-single --dtypes bf16 --device \"NVIDIA B200\" --json out.json", ws);
  EXPECT_EQ(r.status, 2) << r.out;  // no GPU: compiled only
  EXPECT_TRUE(has(r.out, "config: no tuned config for NVIDIA B200")) << r.out;
  const auto j = nlohmann::json::parse(ako::read_file(ws / "out.json"));
  EXPECT_EQ(j["options"]["device"], "NVIDIA B200");
  EXPECT_EQ(j["config"]["device"], "NVIDIA B200");
  EXPECT_EQ(j["config"]["device_source"], "--device");
  EXPECT_EQ(j["config"]["entry"], "default");
  EXPECT_EQ(j["config"]["file"], "solution/rmsnorm/configs/default.json");
  EXPECT_TRUE(j["config"]["fallback"].get<bool>());
  EXPECT_TRUE(has(j["config"]["message"].get<std::string>(), "using default.json"));

  const Ran own = ako("run task rmsnorm --shapes flux1-single --dtypes bf16 --device \"NVIDIA H200\" --json own.json", ws);
  const auto k = nlohmann::json::parse(ako::read_file(ws / "own.json"));
  EXPECT_EQ(k["config"]["entry"], "NVIDIA H200");
  EXPECT_FALSE(k["config"]["fallback"].get<bool>());
  EXPECT_EQ(k["cases"][0]["params"]["BLOCK"], 512);
}

TEST_F(DeviceConfigCli, TheOldSingleConfigFileIsRefusedWithTheConversion) {
  const fs::path ws = make_workspace("old-layout");
  auto doc = nlohmann::json::parse(ako::read_file(ws / "tasks/rmsnorm/task.json"));
  doc["solution"]["config"] = "solution/rmsnorm/config.json";
  ako::write_file_atomically(ws / "tasks/rmsnorm/task.json", doc.dump(2));
  fs::rename(ws / "solution/rmsnorm/configs/default.json", ws / "solution/rmsnorm/config.json");
  const Ran r = ako("compile task rmsnorm", ws);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "field 'solution.config': expected the folder of per-device configs")) << r.out;
  EXPECT_TRUE(has(r.out, "git mv solution/rmsnorm/config.json solution/rmsnorm/configs/default.json")) << r.out;
}

}  // namespace
