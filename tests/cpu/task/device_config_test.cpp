// Per-device configs: the folder's files (device_name=<name>.json + default.json), which one a
// device gets and the line that says so, --device, unknown devices, and the old single-file
// layout refused with the conversion.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using nlohmann::json;
using testing::ScratchRoot;

const std::string kH100 = "NVIDIA H100 80GB HBM3";
const std::string kH200 = "NVIDIA H200";

// The fixture config with its classes renamed, so a case shows which file it came from.
json tagged_config(const std::string& tag) {
  json c = testing::fixture_config_doc();
  c["source"] = tag + " source";
  for (auto& cls : c["classes"]) cls["name"] = tag + "-" + cls["name"].get<std::string>();
  return c;
}

std::string class_of(const TaskSpec& spec, const std::string& label) {
  for (const auto& c : expand_cases(spec, {}, {}, false))
    if (c.label() == label) return c.config_class;
  return "(no case " + label + ")";
}

class DeviceConfigs : public ::testing::Test {
 protected:
  ScratchRoot root;
  TaskSpec load_both() {
    root.write_config(tagged_config("default"));
    root.write_config(tagged_config("h100"), kH100);
    return root.parse(testing::snapshot_task_doc());
  }
};

TEST(DeviceConfigFileName, FollowsVllmAndSglangNaming) {
  EXPECT_EQ(device_config_file_name(kH100), "device_name=NVIDIA_H100_80GB_HBM3.json");
  EXPECT_EQ(device_config_file_name("NVIDIA_H100_80GB_HBM3"), "device_name=NVIDIA_H100_80GB_HBM3.json");
  EXPECT_EQ(device_config_file_name("device_name=NVIDIA_H200.json"), "device_name=NVIDIA_H200.json");
  EXPECT_EQ(device_of_config_file("device_name=NVIDIA_H100_80GB_HBM3.json"), kH100);
  EXPECT_EQ(device_of_config_file("default.json"), std::nullopt);
  EXPECT_EQ(device_of_config_file("device_name=.json"), std::nullopt);
}

TEST_F(DeviceConfigs, EveryFileIsReadAndDefaultIsInstalledAtLoad) {
  testing::write_file(root.config_dir() / "NOTES.md", "not a config: ignored\n");
  const TaskSpec spec = load_both();
  ASSERT_EQ(spec.configs.size(), 2u);
  EXPECT_EQ(spec.configs[0].entry, kH100);
  EXPECT_EQ(spec.configs[1].entry, "default");
  EXPECT_EQ(device_config_entries(spec), std::vector<std::string>{kH100});
  EXPECT_EQ(spec.config_file, "solution/rmsnorm/configs/default.json");
  EXPECT_EQ(spec.config_source, "default source");
  EXPECT_EQ(class_of(spec, "qknorm-flux bf16 weight"), "default-qk-head");
}

TEST_F(DeviceConfigs, TheProbedDeviceGetsItsOwnFile) {
  TaskSpec spec = load_both();
  const ConfigUsed used = use_device_config(spec, kH100, kDeviceFromGpu);
  EXPECT_EQ(used.entry, kH100);
  EXPECT_EQ(used.file, "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json");
  EXPECT_FALSE(used.fallback);
  EXPECT_EQ(used.message, "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json (the config for NVIDIA H100 "
                          "80GB HBM3, the GPU here)");
  EXPECT_EQ(spec.config_source, "h100 source");
  EXPECT_EQ(class_of(spec, "qknorm-flux bf16 weight"), "h100-qk-head");
}

TEST_F(DeviceConfigs, ADeviceWithoutAFileFallsBackToDefaultAndSaysSo) {
  TaskSpec spec = load_both();
  use_device_config(spec, kH100, kDeviceFromGpu);  // a previous choice is replaced, not merged
  const ConfigUsed used = use_device_config(spec, kH200, kDeviceFromGpu);
  EXPECT_EQ(used.entry, "default");
  EXPECT_TRUE(used.fallback);
  EXPECT_EQ(used.message, "no tuned config for NVIDIA H200 in solution/rmsnorm/configs/ (device files: NVIDIA H100 80GB "
                          "HBM3); using default.json");
  EXPECT_EQ(class_of(spec, "qknorm-flux bf16 weight"), "default-qk-head");
}

TEST_F(DeviceConfigs, DeviceOptionPicksAnEntryByNameOrFileSpelling) {
  TaskSpec spec = load_both();
  for (const std::string& spelled : {kH100, std::string("NVIDIA_H100_80GB_HBM3")}) {
    const ConfigUsed used = use_device_config(spec, spelled, kDeviceFromOption);
    EXPECT_EQ(used.entry, kH100) << spelled;
    EXPECT_EQ(used.device_source, "--device");
    EXPECT_NE(used.message.find("named by --device"), std::string::npos) << used.message;
    EXPECT_EQ(class_of(spec, "text-512 bf16 weight"), "h100-rest");
  }
  const ConfigUsed def = use_device_config(spec, "default", kDeviceFromOption);
  EXPECT_EQ(def.entry, "default");
  EXPECT_FALSE(def.fallback);
  EXPECT_EQ(def.message, "solution/rmsnorm/configs/default.json (--device default)");
}

TEST_F(DeviceConfigs, AnUnknownDeviceNamesTheFilesThereAre) {
  TaskSpec spec = load_both();
  const ConfigUsed used = use_device_config(spec, "NVIDIA H20", kDeviceFromOption);
  EXPECT_TRUE(used.fallback);
  EXPECT_EQ(used.device, "NVIDIA H20");
  EXPECT_NE(used.message.find("no tuned config for NVIDIA H20 in solution/rmsnorm/configs/ (device files: NVIDIA H100"),
            std::string::npos)
      << used.message;
}

TEST_F(DeviceConfigs, NoGpuAndNoDeviceUsesDefaultAndSaysHowToPickOne) {
  TaskSpec spec = load_both();
  const ConfigUsed used = use_device_config(spec, "", kDeviceFromOption);
  EXPECT_EQ(used.device_source, "none");
  EXPECT_EQ(used.entry, "default");
  EXPECT_FALSE(used.fallback);
  EXPECT_EQ(used.message,
            "solution/rmsnorm/configs/default.json (no GPU and no --device; --device NAME picks a device's config)");
}

TEST_F(DeviceConfigs, WithoutDefaultJsonAnUnknownDeviceGetsTheFirstAllowedValues) {
  root.write_config(tagged_config("h100"), kH100);
  TaskSpec spec = root.parse(testing::snapshot_task_doc());
  EXPECT_FALSE(spec.config_present);
  const ConfigUsed used = use_device_config(spec, kH200, kDeviceFromGpu);
  EXPECT_EQ(used.entry, "none");
  EXPECT_FALSE(spec.config_present);
  EXPECT_NE(used.message.find("no default.json either: every case uses the first allowed values"), std::string::npos)
      << used.message;
  EXPECT_EQ(class_of(spec, "text-512 bf16 weight"), "default");
}

TEST_F(DeviceConfigs, NoFolderYetMeansNotTuned) {
  TaskSpec spec = root.parse(testing::snapshot_task_doc());
  EXPECT_TRUE(spec.configs.empty());
  const ConfigUsed used = use_device_config(spec, kH100, kDeviceFromGpu);
  EXPECT_EQ(used.entry, "none");
  EXPECT_TRUE(used.fallback);
}

TEST_F(DeviceConfigs, AStrayJsonFileInTheFolderIsAnError) {
  root.write_config(tagged_config("default"));
  testing::write_file(root.config_dir() / "config.json", testing::fixture_config_doc().dump());
  try {
    root.parse(testing::snapshot_task_doc());
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file, (root.config_dir() / "config.json").string());
    EXPECT_NE(std::string(e.what()).find("expected a config file named default.json or device_name="),
              std::string::npos)
        << e.what();
  }
}

TEST_F(DeviceConfigs, ADeviceFileIsCheckedAtLoadLikeAnyConfig) {
  root.write_config(tagged_config("default"));
  json bad = tagged_config("h100");
  bad["classes"][0]["params"]["BLOCK"] = 48;
  root.write_config(bad, kH100);
  try {
    root.parse(testing::snapshot_task_doc());
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file, root.config_file(kH100).string());
    EXPECT_EQ(e.field, "classes[0].params.BLOCK");
  }
}

// The layout before per-device configs: one config.json named by solution.config.
TEST_F(DeviceConfigs, TheOldSingleFileLayoutIsRefusedWithTheConversion) {
  json doc = testing::snapshot_task_doc();
  doc["solution"]["config"] = "solution/rmsnorm/config.json";
  for (bool exists : {false, true}) {
    if (exists) testing::write_file(root.path() / "solution/rmsnorm/config.json", testing::fixture_config_doc().dump());
    try {
      root.parse(doc);
      FAIL() << "no error";
    } catch (const SpecError& e) {
      const std::string m = e.what();
      EXPECT_EQ(e.field, "solution.config") << m;
      EXPECT_NE(m.find("got the file \"solution/rmsnorm/config.json\""), std::string::npos) << m;
      EXPECT_NE(m.find("git mv solution/rmsnorm/config.json solution/rmsnorm/configs/default.json"), std::string::npos)
          << m;
      EXPECT_NE(m.find("set solution.config to \"solution/rmsnorm/configs\""), std::string::npos) << m;
    }
  }
}

}  // namespace
}  // namespace ako::task
