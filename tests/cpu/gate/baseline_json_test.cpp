// ako.baseline/1: round trip, resources-only baselines, and refusal of other schemas or
// malformed fields (a baseline decides CI: nothing is silently defaulted).
#include <gtest/gtest.h>

#include <filesystem>

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

TEST(BaselineJson, OtherSchemaIsRefusedWithTheFix) {
  auto j = to_json(baseline_from(gpu_outcome()));
  j["schema"] = "ako.baseline/2";
  try {
    baseline_from_json(j);
    FAIL() << "accepted ako.baseline/2";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--update-baseline"), std::string::npos) << e.what();
  }
  j.erase("schema");
  EXPECT_THROW(baseline_from_json(j), Error);
  j["schema"] = "ako.run/1";
  EXPECT_THROW(baseline_from_json(j), Error);
}

TEST(BaselineJson, MalformedFieldsNameTheField) {
  auto j = to_json(baseline_from(gpu_outcome()));
  j["tasks"]["rmsnorm"]["kernels"]["solution"][kSolutionKernel]["budget"]["registers"] = "forty";
  try {
    baseline_from_json(j);
    FAIL();
  } catch (const Error& e) {
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
  save_baseline(file, baseline_from(gpu_outcome()));
  EXPECT_EQ(to_json(load_baseline(file)), to_json(baseline_from(gpu_outcome())));
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

}  // namespace
}  // namespace ako::gate
