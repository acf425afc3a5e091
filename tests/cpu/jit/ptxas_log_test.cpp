// The ptxas -v parser on log text recorded from NVRTC 13.0 on this machine.
#include <gtest/gtest.h>

#include "jit/ptxas_log.hpp"

namespace ako::jit {
namespace {

// Two template instantiations with a 1 KB local array and 256 B of shared memory, plus an
// extern "C" kernel that uses no shared memory (ptxas then omits "bytes smem").
constexpr const char* kTemplatedLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1kI13__nv_bfloat16Li4EEvPT_PKS1_i' for 'sm_90a'
ptxas info    : Function properties for _Z1kI13__nv_bfloat16Li4EEvPT_PKS1_i
ptxas         .     1024 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes cumulative stack size, 256 bytes smem
ptxas info    : Compile time = 34.047 ms
ptxas info    : Compiling entry function '_Z1kI6__halfLi8EEvPT_PKS1_i' for 'sm_90a'
ptxas info    : Function properties for _Z1kI6__halfLi8EEvPT_PKS1_i
ptxas         .     1024 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 1024 bytes cumulative stack size, 256 bytes smem
ptxas info    : Compile time = 22.281 ms
ptxas info    : Compiling entry function 'plain' for 'sm_90a'
ptxas info    : Function properties for plain
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
ptxas info    : Compile time = 1.018 ms
)";

// -maxrregcount=16 forcing spills, and a __noinline__ device function reported after the kernel.
constexpr const char* kSpillLog = R"(ptxas warning : For profile sm_90a adjusting per thread register count of 16 to lower bound of 24
ptxas info    : Overriding maximum register limit 256 for 'kc' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'kc' for 'sm_90a'
ptxas info    : Function properties for kc
ptxas         .     912 bytes stack frame, 688 bytes spill stores, 696 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 912 bytes cumulative stack size
ptxas info    : Compile time = 44.078 ms
ptxas info    : Function properties for _Z3devPfi
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
)";

TEST(PtxasLog, ReadsEveryEntryOfATemplatedProgram) {
  const auto r = parse_ptxas_log(kTemplatedLog);
  ASSERT_EQ(r.size(), 3u);
  const auto& bf16 = r.at("_Z1kI13__nv_bfloat16Li4EEvPT_PKS1_i");
  EXPECT_EQ(bf16.registers, 32);
  EXPECT_EQ(bf16.barriers, 1);
  EXPECT_EQ(bf16.stack_bytes, 1024);
  EXPECT_EQ(bf16.spill_stores, 0);
  EXPECT_EQ(bf16.spill_loads, 0);
  EXPECT_EQ(bf16.shared_bytes, 256);
  EXPECT_EQ(bf16.constant_bytes, -1);  // 13.0 does not print cmem[0]
  EXPECT_EQ(r.at("_Z1kI6__halfLi8EEvPT_PKS1_i").registers, 30);
  const auto& plain = r.at("plain");
  EXPECT_EQ(plain.registers, 10);
  EXPECT_EQ(plain.shared_bytes, 0);
  EXPECT_EQ(plain.stack_bytes, 0);
}

TEST(PtxasLog, ReadsSpillsAndLeavesOutDeviceFunctions) {
  const auto r = parse_ptxas_log(kSpillLog);
  ASSERT_EQ(r.size(), 1u);
  const auto& kc = r.at("kc");
  EXPECT_EQ(kc.registers, 24);
  EXPECT_EQ(kc.stack_bytes, 912);
  EXPECT_EQ(kc.spill_stores, 688);
  EXPECT_EQ(kc.spill_loads, 696);
  EXPECT_FALSE(r.contains("_Z3devPfi"));
}

TEST(PtxasLog, ReadsConstantMemoryWhereOlderReleasesPrintIt) {
  const auto r = parse_ptxas_log(
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
      "ptxas info    : Function properties for k\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 12 registers, 48 bytes smem, 368 bytes cmem[0]\n");
  const auto& k = r.at("k");
  EXPECT_EQ(k.registers, 12);
  EXPECT_EQ(k.shared_bytes, 48);
  EXPECT_EQ(k.constant_bytes, 368);
  EXPECT_EQ(k.barriers, -1);
  EXPECT_EQ(k.stack_bytes, 8);
}

TEST(PtxasLog, EmptyOrForeignLogGivesNothing) {
  EXPECT_TRUE(parse_ptxas_log("").empty());
  EXPECT_TRUE(parse_ptxas_log("kernels/a.cuh(3): warning #177-D: variable \"x\" was declared but never referenced\n").empty());
}

}  // namespace
}  // namespace ako::jit
