// Reading `ako validate` results (tests/fixtures/validate/: made by make-fixtures.py with the
// real bench/validate/verdict.py, numbers made up; cpu-smoke-flux1.json a real CPU smoke run),
// the text ako prints from them, and the refusals of malformed or inconsistent results.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "validate/validate_result.hpp"
#include "validate/validate_table.hpp"

namespace ako::validate {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(AKO_TEST_DIR) / "fixtures" / "validate";

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(ValidateResult, ReadsAPassingRun) {
  const ValidateResult r = read_validate_json(kFixtures / "flux1-pass.json");
  EXPECT_EQ(r.model, "flux1");
  EXPECT_EQ(r.device, "NVIDIA H200");
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.backends.size(), 3u);
  const BackendResult* ako = r.backend("ako");
  ASSERT_NE(ako, nullptr);
  ASSERT_NE(ako->mode("graph"), nullptr);
  EXPECT_DOUBLE_EQ(ako->mode("eager")->step_ms, 6.81);
  EXPECT_DOUBLE_EQ(ako->mode("eager")->family_us, 80.0 + 160.0 + 60.0 + 240.0);
  ASSERT_TRUE(ako->rel_l2.has_value());
  EXPECT_DOUBLE_EQ(*ako->rel_l2, 4.3e-3);
  EXPECT_FALSE(r.backend("torch")->rel_l2.has_value());
  ASSERT_EQ(r.families.size(), 4u);
  for (const auto& f : r.families) EXPECT_EQ(f.verdict, "transfers") << f.family;
  EXPECT_EQ(r.ako_sites.size(), 11u);
  EXPECT_EQ(r.blocks_run[0], (std::pair<std::string, int>{"double", 2}));
  EXPECT_EQ(r.blocks_real[1], (std::pair<std::string, int>{"single", 38}));
}

TEST(ValidateResult, PrintsTheStepTableTheVerdictsAndThePassLine) {
  const std::string t = format_validate_text(read_validate_json(kFixtures / "flux1-pass.json"));
  for (const char* want : {"flux1 on NVIDIA H200: blocks double 2 of 19, single 2 of 38", "backend   mode  step ms  family us  GPU us  vs engine", "ako      eager    6.810        540    6540      1.03x  4.30e-03   0.0625",
                           "ako step vs engine: eager 1.03x graph 1.03x (as measured; no verdict)",
                           "norm_scale_shift: microbench 1.50x, in the step eager 1.50x, graph 1.49x", "VALIDATE: pass (flux1)"})
    EXPECT_TRUE(has(t, want)) << want << "\n" << t;
  EXPECT_FALSE(has(t, "sites where the ako backend ran the engine's kernel")) << t;
  EXPECT_FALSE(has(t, "FAILED")) << t;
}

TEST(ValidateResult, ListsWhatTheEngineBackendRanAtEachSite) {
  const ValidateResult r = read_validate_json(kFixtures / "flux1-pass.json");
  ASSERT_EQ(r.engine_sites.size(), 11u);
  EXPECT_EQ(r.engine_sites[2].site, "double.img.qk_norm_rope");
  EXPECT_EQ(r.engine_sites[2].impl, "sglang_jit qknorm_rope");
  const std::string t = format_validate_text(r);
  EXPECT_TRUE(has(t, "what the engine backend ran at each site:")) << t;
  // one line per site: the site, its family and what ran there
  auto line_of = [&](const std::string& site) {
    const auto at = t.find("\n" + site + " ");
    return at == std::string::npos ? std::string() : t.substr(at + 1, t.find('\n', at + 1) - at - 1);
  };
  EXPECT_TRUE(has(line_of("double.img.qk_norm_rope"), "sglang_jit qknorm_rope")) << t;
  EXPECT_TRUE(has(line_of("single.act"), "torch: SGLang's MLP runs nn.GELU(approximate='tanh')")) << t;
  // a result without the engine's sites (the engine backend not run) lists none
  const ValidateResult smoke = read_validate_json(kFixtures / "cpu-smoke-flux1.json");
  EXPECT_TRUE(smoke.engine_sites.empty());
  EXPECT_FALSE(has(format_validate_text(smoke), "what the engine backend ran")) << format_validate_text(smoke);
}

TEST(ValidateResult, NamesTheFamilyWhoseWinDoesNotTransferAndTheFallbackSite) {
  const ValidateResult r = read_validate_json(kFixtures / "flux1-fail.json");
  EXPECT_FALSE(r.passed());
  const std::string t = format_validate_text(r);
  for (const char* want : {"FAILED: qknorm_rope: does not transfer: microbench 1.25x, in the step eager 1.05x",
                           "FAILED: gated_act: fallback: 1 site(s) ran the engine's kernel: single.act",
                           "sites where the ako backend ran the engine's kernel:",
                           "single.act  gated_act      2  engine torch (no engine kernel) (ako: the ported wrapper returned False",
                           "residual_gate_norm_scale_shift: no ako wrapper in the payload", "VALIDATE: FAIL (flux1)"})
    EXPECT_TRUE(has(t, want)) << want << "\n" << t;
  const auto rows = family_rows(r);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2], (std::vector<std::string>{"qknorm_rope", "6", "yes", "1.25x", "1.05x", "1.05x", "does not transfer"}));
  EXPECT_EQ(rows[3][2], "no");
}

TEST(ValidateResult, ReadsTheCpuSmokeRunOfTheTorchBackendAlone) {
  const ValidateResult r = read_validate_json(kFixtures / "cpu-smoke-flux1.json");
  EXPECT_EQ(r.verdict, "smoke");
  EXPECT_TRUE(r.tiny);
  ASSERT_EQ(r.backends.size(), 1u);
  const std::string t = format_validate_text(r);
  EXPECT_TRUE(has(t, "[tiny dims: a smoke run]")) << t;
  EXPECT_TRUE(has(t, "torch       -")) << t;
  EXPECT_TRUE(has(t, "VALIDATE: smoke (flux1)")) << t;
}

nlohmann::json fixture(const char* name) { return nlohmann::json::parse(read_file(kFixtures / name)); }

std::string refusal(const nlohmann::json& j) {
  try {
    parse_validate_json(j.dump(), "x.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ValidateResult, RefusesAPassThatListsAFailureOrAFailingFamily) {
  auto j = fixture("flux1-fail.json");
  j["verdict"] = "pass";
  EXPECT_TRUE(has(refusal(j), "x.json: field 'verdict': pass with 2 failure(s) listed")) << refusal(j);
  j["failures"] = nlohmann::json::array();
  EXPECT_TRUE(has(refusal(j), "pass, but family gated_act is 'fallback'")) << refusal(j);
}

TEST(ValidateResult, NamesTheFileAndTheFieldOfAMalformedResult) {
  auto j = fixture("flux1-pass.json");
  j["schema"] = "ako.run/1";
  EXPECT_TRUE(has(refusal(j), "x.json: field 'schema': expected ako.validate/1, got ako.run/1")) << refusal(j);
  j = fixture("flux1-pass.json");
  j["backends"]["ako"]["eager"]["step_ms"].erase("median");
  EXPECT_TRUE(has(refusal(j), "field 'backends.ako.eager.step_ms.median': missing")) << refusal(j);
  j = fixture("flux1-pass.json");
  j["families"]["gated_act"]["sites"] = "six";
  EXPECT_TRUE(has(refusal(j), "field 'families.gated_act.sites': has the wrong type")) << refusal(j);
  j = fixture("flux1-pass.json");
  j["backends"].erase("torch");
  EXPECT_TRUE(has(refusal(j), "field 'backends.torch': missing")) << refusal(j);
  EXPECT_TRUE(has([] {
    try {
      parse_validate_json("{nope", "y.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  }(), "y.json: not JSON")) << "";
}

}  // namespace
}  // namespace ako::validate
