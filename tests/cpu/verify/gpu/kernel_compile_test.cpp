// Every kernel file the verify stage and the rmsnorm task rely on compiles with NVRTC for
// sm_90a on its own (no GPU needed), and the solution's configured variants do not spill.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "nvrtc_helper.hpp"

namespace ako::verify::test {
namespace {

const std::filesystem::path kRoot = AKO_SOURCE_DIR;
const char* const kTypes[] = {"__nv_bfloat16", "__half"};

// Fails with the NVRTC log, so a compile error shows its file and line.
NvrtcOutput compile_or_fail(const std::filesystem::path& file, const std::vector<std::string>& exprs) {
  NvrtcOutput out = nvrtc_compile(file, exprs);
  EXPECT_TRUE(out.ok) << file << ":\n" << out.log;
  if (out.ok) {
    EXPECT_FALSE(out.cubin.empty());
    for (const auto& e : exprs) EXPECT_FALSE(out.lowered[e].empty()) << e;
  }
  return out;
}

// Name expressions of the solution for every config class's parameters of every device's
// config file, both dtypes, weight and no weight (the config files are what `ako run` uses).
std::vector<std::string> configured_solution_variants() {
  std::vector<nlohmann::json> configs;
  for (const auto& f : std::filesystem::directory_iterator(kRoot / "solution/rmsnorm/configs"))
    if (f.path().extension() == ".json") {
      std::ifstream in(f.path());
      configs.push_back(nlohmann::json::parse(in));
    }
  EXPECT_FALSE(configs.empty());
  std::set<std::string> exprs;
  for (const auto& config : configs)
    for (const auto& cls : config.at("classes")) {
      const auto& p = cls.at("params");
      for (const char* t : kTypes)
        for (const char* w : {"true", "false"})
          exprs.insert(std::string("rmsnorm_kernel<") + t + ", " + w + ", " + std::to_string(p.at("BLOCK").get<int>()) +
                       ", " + std::to_string(p.at("VEC").get<int>()) + ", " +
                       std::to_string(p.at("ROWS_PER_BLOCK").get<int>()) + ", " +
                       std::to_string(p.at("CHUNKS").get<int>()) + ">");
    }
  return {exprs.begin(), exprs.end()};
}

TEST(KernelCompile, PtxasLogParser) {
  const std::string log =
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z1kv\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 8 bytes cumulative stack size\n";
  const auto r = parse_ptxas_log(log);
  ASSERT_EQ(r.count("_Z1kv"), 1u);
  EXPECT_EQ(r.at("_Z1kv").registers, 40);
  EXPECT_EQ(r.at("_Z1kv").stack_bytes, 8);
  EXPECT_EQ(r.at("_Z1kv").spill_stores, 4);
  EXPECT_EQ(r.at("_Z1kv").spill_loads, 12);
}

TEST(KernelCompile, ReferenceKernel) {
  std::vector<std::string> exprs;
  for (const char* t : kTypes)
    for (const char* w : {"true", "false"}) exprs.push_back(std::string("rmsnorm_reference<") + t + ", " + w + ">");
  compile_or_fail(kRoot / "input/rmsnorm/rmsnorm.cuh", exprs);
}

TEST(KernelCompile, SolutionEveryConfigClassWithoutSpills) {
  const auto exprs = configured_solution_variants();
  ASSERT_GE(exprs.size(), 8u);
  const auto out = compile_or_fail(kRoot / "solution/rmsnorm/rmsnorm.cuh", exprs);
  if (!out.ok) return;
  for (const auto& e : exprs) {
    const auto it = out.resources.find(out.lowered.at(e));
    ASSERT_NE(it, out.resources.end()) << "no ptxas report for " << e << "\n" << out.log;
    const PtxasReport& r = it->second;
    EXPECT_EQ(r.spill_stores, 0) << e;
    EXPECT_EQ(r.spill_loads, 0) << e;
    EXPECT_EQ(r.stack_bytes, 0) << e << ": local memory (a register array indexed at run time?)";
    EXPECT_GT(r.registers, 0) << e;
    EXPECT_LE(r.registers, 64) << e << ": more registers than the occupancy the configs assume";
  }
}

TEST(KernelCompile, SolutionEveryVectorWidth) {
  // Widths the configs do not use yet still have to build (the tuner may pick them).
  std::vector<std::string> exprs;
  for (const char* t : kTypes)
    for (int vec : {1, 2, 4, 8})
      exprs.push_back(std::string("rmsnorm_kernel<") + t + ", true, 128, " + std::to_string(vec) + ", 1, 2>");
  compile_or_fail(kRoot / "solution/rmsnorm/rmsnorm.cuh", exprs);
}

TEST(KernelCompile, SupportKernelsEveryType) {
  // The name expressions the worker looks up (cli/commands/run_plan.cpp, support_name_expressions).
  std::vector<std::string> exprs;
  for (const char* k : {"ako_fill_normal", "ako_fill_uniform"})
    for (const char* t : {"__nv_bfloat16", "__half", "float"}) exprs.push_back(std::string(k) + "<" + t + ">");
  for (const char* t : {"int", "long long"}) exprs.push_back(std::string("ako_fill_range<") + t + ">");
  for (const char* k : {"ako_poison", "ako_compare"})
    for (const char* t : {"__nv_bfloat16", "__half", "float", "int", "long long"})
      exprs.push_back(std::string(k) + "<" + t + ">");
  for (const char* w : {"unsigned short", "unsigned int", "unsigned long long"})
    exprs.push_back(std::string("ako_check_outside<") + w + ">");
  for (const char* k : {"ako_widen", "ako_oracle_error"})   // the precision check
    for (const char* t : {"__nv_bfloat16", "__half", "float"}) exprs.push_back(std::string(k) + "<" + t + ">");
  const auto out = compile_or_fail(kRoot / "harness/verify/gpu/support_kernels.cuh", exprs);
  for (const auto& [name, r] : out.resources) {
    EXPECT_EQ(r.spill_stores, 0) << name;
    EXPECT_EQ(r.stack_bytes, 0) << name << ": a view indexed at run time in local memory?";
  }
}

class BrokenKernel : public ::testing::TestWithParam<const char*> {};

TEST_P(BrokenKernel, CompilesAsADropInSolution) {
  // Same name expressions as the real solution, so the worker can launch it in its place.
  compile_or_fail(std::filesystem::path(AKO_TEST_DIR) / "gpu/broken" / (std::string(GetParam()) + ".cuh"),
                  {"rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 2, 3>", "rmsnorm_kernel<__half, false, 256, 8, 32, 2>"});
}

INSTANTIATE_TEST_SUITE_P(Verify, BrokenKernel,
                         ::testing::Values("illegal_address", "trap", "hang", "wrong_result", "unwritten_tail",
                                           "nan_output"));

}  // namespace
}  // namespace ako::verify::test
