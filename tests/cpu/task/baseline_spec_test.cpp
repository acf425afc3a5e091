// Baselines in the task format (tasks/README.md, "Baselines"): parsing, the errors, and their
// expansion per case (absent when not applicable or not installed; lets, scalars, options).
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "task/cases.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using nlohmann::json;
using testing::ScratchRoot;
using Kind = model::Arg::Kind;

using testing::find_case;

std::string spec_error(const ScratchRoot& root, const json& doc) {
  try {
    root.parse(doc);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BaselineSpec, TheShippedRmsnormSpecNamesFlashInfer) {
  ScratchRoot root;
  const TaskSpec spec = root.parse(testing::real_task_doc());
  ASSERT_EQ(spec.baselines.size(), 1u);
  const BaselineSpec& b = spec.baselines[0];
  EXPECT_EQ(b.name, "flashinfer");
  EXPECT_EQ(b.when, "weight");
  ASSERT_EQ(b.lets.size(), 2u);
  EXPECT_EQ(b.lets[0].first, "VEC");
  EXPECT_EQ(b.lets[1].first, "WARPS");
  EXPECT_EQ(b.kernel.kernel, "flashinfer::norm::RMSNormKernel<{VEC}, {T}>");
  EXPECT_EQ(b.options.front(), "-default-device");
  ASSERT_EQ(b.scalars.size(), 1u);
  EXPECT_EQ(b.scalars[0].name, "weight_bias");
}

TEST(BaselineSpec, AbsentWhenNotApplicableOrNotInstalled) {
  ScratchRoot root;
  const TaskSpec spec = root.parse(testing::real_task_doc());   // peers/ is not in the scratch root
  const auto cases = expand_cases(spec, {}, {}, true);
  const Case& weighted = find_case(cases, "flux1-single bf16 weight");
  ASSERT_EQ(weighted.baselines.size(), 1u);
  EXPECT_FALSE(weighted.baselines[0].kernel.has_value());
  EXPECT_NE(weighted.baselines[0].absent_reason.find("not installed: peers/flashinfer-python-0.7.2/include/flashinfer/"
                                                    "norm.cuh is missing; run scripts/fetch-peers.sh"),
            std::string::npos)
      << weighted.baselines[0].absent_reason;
  const Case& plain = find_case(cases, "flux1-single bf16 noweight");
  EXPECT_EQ(plain.baselines[0].absent_reason, "not applicable to this case (when: weight)");
  for (const auto& c : cases) {
    if (c.kind != "reference_check") continue;
    EXPECT_TRUE(c.baselines.empty()) << c.label();
  }
}

TEST(BaselineSpec, InstalledBaselineIsInstantiatedAsItsLauncherWould) {
  ScratchRoot root;
  testing::write_file(root.path() / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh", "// placeholder\n");
  const TaskSpec spec = root.parse(testing::real_task_doc());
  const auto cases = expand_cases(spec, {}, {}, false);
  const Case& c = find_case(cases, "flux1-single fp16 weight");   // 4608 x 3072
  ASSERT_TRUE(c.baselines[0].kernel.has_value()) << c.baselines[0].absent_reason;
  const KernelInstance& k = *c.baselines[0].kernel;
  EXPECT_EQ(k.name_expression, "flashinfer::norm::RMSNormKernel<8, __half>");   // VEC = gcd(16 / 2, 3072)
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{4608, 1, 1}));
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{32, 12, 1}));   // WARPS = ceil_div(min(1024, 384), 32)
  EXPECT_EQ(k.shared_bytes, 48u);
  ASSERT_EQ(k.args.size(), 8u);
  EXPECT_EQ(k.args[0].kind, Kind::buffer);   // x
  EXPECT_EQ(k.args[3].kind, Kind::i32);
  EXPECT_EQ(k.args[3].i, 3072);
  EXPECT_EQ(k.args[6].kind, Kind::f32);      // weight_bias
  EXPECT_EQ(k.args[6].f, 0.0);
  EXPECT_EQ(k.args[7].f, 1e-6);              // the task's eps
  const auto& opts = c.baselines[0].options;
  EXPECT_EQ(opts[0], "-I" + (root.path() / "engines/flashinfer_nvrtc").string());
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-default-device"), opts.end());
}

// A peer built in C++20 by its engine (SGLang's JIT kernels use concepts) keeps its standard.
TEST(BaselineSpec, TheEnginesLanguageStandardIsPassedOn) {
  ScratchRoot root;
  testing::write_file(root.path() / "peers/flashinfer-python-0.7.2/include/flashinfer/norm.cuh", "// placeholder\n");
  json doc = testing::real_task_doc();
  doc["baselines"][0]["options"] = json::array({"-default-device", "-std=c++20"});
  const TaskSpec spec = root.parse(doc);
  const auto cases = expand_cases(spec, {}, {}, false);
  const Case& c = find_case(cases, "flux1-single fp16 weight");
  ASSERT_TRUE(c.baselines[0].kernel.has_value()) << c.baselines[0].absent_reason;
  const auto& opts = c.baselines[0].options;
  EXPECT_NE(std::find(opts.begin(), opts.end(), "-std=c++20"), opts.end());
}

TEST(BaselineSpec, ErrorsNameTheFieldAndWhatWasExpected) {
  ScratchRoot root;
  auto with = [](const std::string& path, const json& value) {
    json doc = testing::real_task_doc();
    doc["baselines"][0][json::json_pointer(path)] = value;
    return doc;
  };
  auto bad = [&](json doc) { return spec_error(root, doc); };
  EXPECT_NE(bad(with("/name", "solution")).find("baselines[0].name"), std::string::npos);
  EXPECT_NE(bad(with("/options", json::array({"-arch=sm_80"}))).find("other than -arch"), std::string::npos);
  // The language standard: only the two an engine builds its peers in (SGLang's JIT: c++20).
  EXPECT_NE(bad(with("/options", json::array({"-std=c++14"}))).find("-std only as -std=c++17 or -std=c++20"),
            std::string::npos);
  EXPECT_NE(bad(with("/options", json::array({"--std=c++20"}))).find("-std only as"), std::string::npos);
  EXPECT_NE(bad(with("/let", json::array({{{"name", "VEC"}, {"value", "nosuch * 2"}}}))).find("nosuch"),
            std::string::npos);
  EXPECT_NE(bad(with("/args", json::array({"x", "frobnicate"}))).find("frobnicate"), std::string::npos);
  EXPECT_NE(bad(with("/when", "weight && nosuch")).find("baselines[0].when"), std::string::npos);
  EXPECT_NE(bad(with("/kernel", "k<{NOPE}>")).find("{NOPE}"), std::string::npos);
  EXPECT_NE(bad(with("/file", "input/rmsnorm/rmsnorm.cuh")).find("a file of the baseline's own"), std::string::npos);
  json doc = testing::real_task_doc();
  doc["baselines"][0]["surprise"] = 1;
  EXPECT_NE(bad(doc).find("surprise"), std::string::npos);
}

}  // namespace
}  // namespace ako::task
