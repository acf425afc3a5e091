// ako.baseline/2 (one entry per device): round trip, resources-only entries, ako.baseline/1 read
// as one entry, and refusal of other schemas or malformed fields (a baseline decides CI:
// nothing is silently defaulted).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.hpp"
#include "gate/baseline.hpp"
#include "gate_fixtures.hpp"

namespace ako::gate {
namespace {

using namespace testing;

TEST(BaselineJson, RoundTrip) {
  Baseline b = baseline_from(gpu_outcome());
  b.tasks["rmsnorm"].threshold_pct = 5.0;
  b.threshold_pct = 2.5;
  const Baseline back = baseline_from_json(nlohmann::json::parse(to_json(b).dump()));
  EXPECT_EQ(to_json(back), to_json(b));
  ASSERT_TRUE(back.device);
  EXPECT_EQ(back.device->name, kH100);
  EXPECT_EQ(*back.tasks.at("rmsnorm").threshold_pct, 5.0);
  EXPECT_EQ(back.threshold_pct, 2.5);
  const auto& c = back.tasks.at("rmsnorm").cases.at("flux1-single bf16 weight");
  ASSERT_TRUE(c.solution);
  EXPECT_EQ(c.solution->median_us, 10.0);
  EXPECT_EQ(back.tasks.at("rmsnorm").kernels.at("solution").at(kSolutionKernel).budget.registers, 40);
}

TEST(BaselineJson, ResourcesOnlyBaselineIsValidAndSaysSo) {
  Baseline b;
  b.arch = "sm_90a";
  b.tasks["rmsnorm"].kernels["solution"][kSolutionKernel] = {"solution/rmsnorm/rmsnorm.cuh", {40, 0, 0, 0, 8}};
  const auto j = to_json(b);
  EXPECT_TRUE(j["device"].is_null());
  EXPECT_NE(j["timings"].get<std::string>().find("resources-only"), std::string::npos);
  const Baseline back = baseline_from_json(j);
  EXPECT_FALSE(back.has_timings());
  EXPECT_EQ(back.threshold_pct, kDefaultThresholdPct);
}

// A file with the H100's entry and a resources-only entry for another device's config.
BaselineFile two_entries() {
  BaselineFile f;
  f.devices[kH100] = baseline_from(gpu_outcome());
  Baseline budgets;
  budgets.arch = "sm_90a";
  budgets.tasks["rmsnorm"].kernels["solution"][kSolutionKernel] = {"solution/rmsnorm/rmsnorm.cuh", {40, 0, 0, 0, 8}};
  f.devices["NVIDIA H200"] = budgets;
  return f;
}

// What an ako.baseline/1 file held: one entry's fields and the schema.
nlohmann::json v1_document(const Baseline& b) {
  auto j = to_json(b);
  j["schema"] = "ako.baseline/1";
  return j;
}

TEST(BaselineFileJson, EntriesRoundTripKeyedByDevice) {
  const BaselineFile f = two_entries();
  const auto j = to_json(f);
  EXPECT_EQ(j["schema"], "ako.baseline/2");
  EXPECT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][kH100]["device"]["name"], kH100);
  EXPECT_FALSE(j["devices"][kH100].contains("schema"));  // the file has it, not each entry
  const BaselineFile back = baseline_file_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.read_schema, "ako.baseline/2");
  ASSERT_NE(back.find(kH100), nullptr);
  EXPECT_TRUE(back.find(kH100)->has_timings());
  EXPECT_FALSE(back.find("NVIDIA_H200")->has_timings());  // `_` and spaces name the same device
  EXPECT_EQ(back.find("NVIDIA H20"), nullptr);
  EXPECT_EQ(back.key_of("NVIDIA_H200"), "NVIDIA H200");
  EXPECT_EQ(back.key_of("NVIDIA_B200"), "NVIDIA B200");  // a new entry is keyed as the GPU names itself
  EXPECT_EQ(back.entry_names(), "NVIDIA H100 80GB HBM3, NVIDIA H200");
}

TEST(BaselineFileJson, Version1IsReadAsOneEntryOfItsDevice) {
  const Baseline b = baseline_from(gpu_outcome());
  const BaselineFile f = baseline_file_from_json(v1_document(b));
  EXPECT_EQ(f.read_schema, "ako.baseline/1");
  ASSERT_EQ(f.devices.size(), 1u);
  ASSERT_NE(f.find(kH100), nullptr);
  EXPECT_EQ(to_json(*f.find(kH100)), to_json(b));  // the entry is the v1 content as it was
  EXPECT_EQ(to_json(f)["schema"], "ako.baseline/2");   // and is written back as v2

  Baseline budgets;  // a v1 file made without a GPU: the "default" entry
  budgets.arch = "sm_90a";
  const BaselineFile r = baseline_file_from_json(v1_document(budgets));
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices.begin()->first, "default");
}

TEST(BaselineFileJson, AnEntryWithTimingsMustBeKeyedByItsDevice) {
  auto j = to_json(two_entries());
  j["devices"]["NVIDIA H200"] = j["devices"][kH100];
  try {
    baseline_file_from_json(j);
    FAIL() << "accepted H100 timings under the H200's key";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("devices.NVIDIA H200.device.name"), std::string::npos) << e.what();
  }
}

TEST(BaselineFileJson, OtherSchemaIsRefusedWithTheFix) {
  auto j = to_json(two_entries());
  j["schema"] = "ako.baseline/3";
  try {
    baseline_file_from_json(j);
    FAIL() << "accepted ako.baseline/3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--update-baseline"), std::string::npos) << e.what();
  }
  j.erase("schema");
  EXPECT_THROW(baseline_file_from_json(j), Error);
  j["schema"] = "ako.run/1";
  EXPECT_THROW(baseline_file_from_json(j), Error);
}

TEST(BaselineJson, MalformedFieldsNameTheField) {
  auto j = to_json(two_entries());
  j["devices"][kH100]["tasks"]["rmsnorm"]["kernels"]["solution"][kSolutionKernel]["budget"]["registers"] = "forty";
  try {
    baseline_file_from_json(j);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("devices.NVIDIA H100 80GB HBM3.tasks.rmsnorm.kernels.solution."),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("budget.registers"), std::string::npos) << e.what();
  }
  j = to_json(baseline_from(gpu_outcome()));
  j["tasks"]["rmsnorm"]["cases"]["flux1-single bf16 weight"]["solution"]["median_us"] = 0;
  EXPECT_THROW(baseline_from_json(j), Error);
  j = to_json(baseline_from(gpu_outcome()));
  j["device"] = nullptr;  // timings that name no device
  EXPECT_THROW(baseline_from_json(j), Error);
  j = to_json(baseline_from(gpu_outcome()));
  j["tasks"]["rmsnorm"]["kernels"]["support"] = nlohmann::json::object();
  EXPECT_THROW(baseline_from_json(j), Error);
}

TEST(BaselineJson, FileRoundTripAndErrorsNameTheFile) {
  const auto file = std::filesystem::temp_directory_path() / "ako-gate-test-baseline.json";
  save_baseline(file, two_entries());
  EXPECT_EQ(to_json(load_baseline(file)), to_json(two_entries()));
  std::FILE* f = std::fopen(file.c_str(), "w");
  std::fputs("{not json", f);
  std::fclose(f);
  try {
    load_baseline(file);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

// The committed baseline: v2, its H100 entry exactly as measured (the v1 content of commit
// 44bd98e, migrated without a change), and ako writes it back byte for byte.
TEST(BaselineFileJson, TheCommittedBaselineRoundTripsByteForByte) {
  const auto path = std::filesystem::path(AKO_SOURCE_DIR) / "bench/baseline.json";
  std::ifstream in(path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const BaselineFile f = baseline_file_from_json(nlohmann::json::parse(text));
  EXPECT_EQ(f.read_schema, "ako.baseline/2");
  ASSERT_NE(f.find(kH100), nullptr);
  EXPECT_TRUE(f.find(kH100)->has_timings());
  EXPECT_EQ(to_json(f).dump(2) + "\n", text);
  // Timed before the IQM: read with its medians as the centre, and said so by the gate.
  EXPECT_TRUE(timed_before_iqm(*f.find(kH100)));
  const auto& c = f.find(kH100)->tasks.at("rmsnorm").cases.at("flux1-single bf16 weight");
  ASSERT_TRUE(c.solution);
  EXPECT_TRUE(c.solution->before_iqm());
  EXPECT_EQ(c.solution->centre_us(), c.solution->median_us);
}

TEST(BaselineJson, AnEntryWithoutIqmIsReadWithItsMedianAsTheCentre) {
  auto j = to_json(baseline_from(gpu_outcome()));
  auto& sol = j["tasks"]["rmsnorm"]["cases"]["flux1-single bf16 weight"]["solution"];
  ASSERT_TRUE(sol.contains("iqm_us"));  // written by this ako
  sol.erase("iqm_us");
  sol["median_us"] = 9.5;
  const Baseline old = baseline_from_json(j);
  const BaselineTiming& t = *old.tasks.at("rmsnorm").cases.at("flux1-single bf16 weight").solution;
  EXPECT_TRUE(t.before_iqm());
  EXPECT_EQ(t.centre_us(), 9.5);
  EXPECT_TRUE(timed_before_iqm(old));
  EXPECT_FALSE(to_json(old)["tasks"]["rmsnorm"]["cases"]["flux1-single bf16 weight"]["solution"].contains("iqm_us"));

  const Baseline now = baseline_from(gpu_outcome());
  EXPECT_FALSE(timed_before_iqm(now));
  EXPECT_EQ(now.tasks.at("rmsnorm").cases.at("flux1-single bf16 weight").solution->centre_us(), 10.0);
  sol["iqm_us"] = 0;  // present but not a time
  EXPECT_THROW(baseline_from_json(j), Error);
}

}  // namespace
}  // namespace ako::gate
