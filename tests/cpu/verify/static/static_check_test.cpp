// Static checks on compiled code (harness/verify/static): the PTX rules one by one on small
// hand-written PTX, then on programs NVRTC really compiled: the honest solution and the
// reference give no finding, and the device-side launch attack (which ptxas refuses without
// -rdc) is still flagged from its PTX.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "jit/compiler.hpp"
#include "jit/nvrtc_program.hpp"
#include "task/spec.hpp"
#include "verify/static/static_check.hpp"

namespace fs = std::filesystem;
using ako::StaticFinding;
using ako::verify::check_program;
using ako::verify::StaticCheckInput;

namespace {

// A module with one kernel `k` whose body is `body`, after module-scope `decls`.
std::string ptx(const std::string& decls, const std::string& body) {
  return ".version 9.0\n.target sm_90a\n.address_size 64\n" + decls +
         "\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 %rd<9>;\n\t.reg .f32 %f<9>;\n" + body +
         "\n\tret;\n}\n";
}

std::vector<StaticFinding> check(const std::string& text, std::set<std::string> allow = {}) {
  StaticCheckInput in;
  in.file = "x.cuh";
  in.ptx = text;
  in.display_names["k"] = "k<float>";
  in.allow = std::move(allow);
  return check_program(in);
}

std::string checks(const std::vector<StaticFinding>& fs) {
  std::string s;
  for (const auto& f : fs) s += f.check + (f.allowed ? "(allowed)" : "") + " ";
  return s;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(StaticCheck, TheTaskListAndTheCheckerAgree) {
  EXPECT_EQ(ako::task::kStaticChecks, ako::verify::static_check_names());
}

TEST(StaticCheck, PlainKernelHasNoFinding) {
  EXPECT_EQ(checks(check(ptx("", "\tld.param.u64 %rd1, [k_param_0];\n\tst.global.f32 [%rd1], %f1;"))), "");
}

TEST(StaticCheck, StoredGlobalIsACrossCallCache) {
  const auto f = check(ptx(".global .align 4 .b8 cache[64];", "\tst.global.f32 [cache+4], %f1;"));
  ASSERT_EQ(checks(f), "device_globals ");
  EXPECT_EQ(f[0].kernel, "k<float>");
  EXPECT_NE(f[0].what.find("'cache'"), std::string::npos) << f[0].what;
  EXPECT_NE(f[0].what.find("stores to it"), std::string::npos) << f[0].what;
}

TEST(StaticCheck, AtomicOnGlobalAndEscapingAddressAreFindings) {
  EXPECT_EQ(checks(check(ptx(".visible .global .align 4 .u32 n;", "\t@%p1 atom.global.add.u32 %r1, [n], 1;"))),
            "device_globals ");
  const auto f = check(ptx(".global .align 4 .b8 t[8];", "\tmov.u64 %rd2, t;\n\tst.global.f32 [%rd2], %f1;"));
  ASSERT_EQ(checks(f), "device_globals ");
  EXPECT_NE(f[0].what.find("takes its address"), std::string::npos) << f[0].what;
}

TEST(StaticCheck, ReadOnlyGlobalTableAndConstantsAreFine) {
  EXPECT_EQ(checks(check(ptx(".global .align 4 .b8 tab[8] = {0, 0, 128, 63, 0, 0, 0, 64};\n.const .align 4 .b8 c[16];\n"
                             ".shared .align 4 .b8 s[16];",
                             "\tld.global.nc.f32 %f1, [tab+4];\n\tld.global.f32 %f2, [tab];\n\tld.const.f32 %f3, [c];"))),
            "");
}

TEST(StaticCheck, TimerReads) {
  for (const char* reg : {"%globaltimer", "%globaltimer_lo", "%clock", "%clock64", "%clock_hi"}) {
    const auto f = check(ptx("", std::string("\tmov.u64 %rd1, ") + reg + ";"));
    ASSERT_EQ(checks(f), "clock ") << reg;
    EXPECT_EQ(f[0].what, std::string("reads ") + reg);
  }
  EXPECT_EQ(checks(check(ptx("", "\t// %globaltimer in a comment is no read\n\tmov.u32 %r1, %tid.x;"))), "");
}

TEST(StaticCheck, DeviceLaunchSpanningLines) {
  const auto f = check(ptx("", "\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tcall.uni (retval0),\n\tcudaLaunchDeviceV2,\n"
                               "\t(\n\tparam0\n\t);\n\t} // callseq 0"));
  ASSERT_EQ(checks(f), "device_launch ");
  EXPECT_EQ(f[0].what, "calls cudaLaunchDeviceV2 (a device-side launch)");
}

TEST(StaticCheck, DeviceMalloc) {
  EXPECT_EQ(checks(check(ptx("", "\tcall.uni (retval0), malloc, (param0);"))), "device_heap ");
}

TEST(StaticCheck, L2PersistAndDiscardButNotStreamingHints) {
  EXPECT_EQ(checks(check(ptx("", "\tdiscard.global.L2 [%rd1], 128;"))), "l2_discard ");
  EXPECT_EQ(checks(check(ptx("", "\tapplypriority.global.L2::evict_normal [%rd1], 128;"))), "l2_persist ");
  EXPECT_EQ(checks(check(ptx("", "\tcreatepolicy.fractional.L2::evict_last.b64 %rd2, 1.0;"))), "l2_persist ");
  EXPECT_EQ(checks(check(ptx("", "\tprefetch.global.L2::evict_last [%rd1];"))), "l2_persist ");
  EXPECT_EQ(checks(check(ptx("", "\tld.global.L2::cache_hint.f32 %f1, [%rd1], %rd2;"))), "l2_persist ");
  EXPECT_EQ(checks(check(ptx("", "\tld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
                               "\tst.global.cs.f32 [%rd1], %f1;\n\tld.global.L2::evict_first.f32 %f1, [%rd1];\n"
                               "\tcreatepolicy.fractional.L2::evict_first.b64 %rd2, 1.0;"))),
            "");
}

TEST(StaticCheck, LocalMemoryFromThePtxasReport) {
  StaticCheckInput in;
  in.file = "x.cuh";
  in.ptx = ptx("", "");
  ako::KernelResources r;
  r.stack_bytes = 256;
  r.spill_stores = r.spill_loads = 0;
  in.resources["k"] = r;
  in.display_names["k"] = "k<float>";
  EXPECT_EQ(checks(check_program(in)), "");  // at the budget
  in.resources["k"].stack_bytes = 4096;
  auto f = check_program(in);
  ASSERT_EQ(checks(f), "local_memory ");
  EXPECT_EQ(f[0].what, "uses a 4096 byte stack frame (budget 256 bytes)");
  in.resources["k"].stack_bytes = 8;
  in.resources["k"].spill_stores = 8;
  EXPECT_EQ(checks(check_program(in)), "local_memory ");
}

TEST(StaticCheck, AllowReportsButDoesNotRefuse) {
  const auto f = check(ptx("", "\tmov.u64 %rd1, %clock64;\n\tdiscard.global.L2 [%rd1], 128;"), {"clock"});
  EXPECT_EQ(checks(f), "clock(allowed) l2_discard ");
  EXPECT_TRUE(ako::verify::any_refused(f));
  EXPECT_FALSE(ako::verify::any_refused(check(ptx("", "\tmov.u64 %rd1, %clock64;"), {"clock"})));
}

// --- on code NVRTC really compiled -------------------------------------------------------

ako::jit::CompileOptions no_cache() {
  ako::jit::CompileOptions o;  // empty cache_dir: a private scratch directory
  return o;
}

std::vector<StaticFinding> compile_and_check(const std::string& file, const std::vector<std::string>& exprs) {
  ako::jit::CompileRequest req;
  req.source = fs::path(AKO_SOURCE_DIR) / file;
  req.display_name = file;
  req.name_expressions = exprs;
  req.arch = "sm_90a";
  const ako::jit::CompiledModule m = ako::jit::compile(req, no_cache());
  EXPECT_TRUE(fs::exists(m.ptx)) << m.ptx;
  StaticCheckInput in;
  in.file = file;
  in.ptx = read(m.ptx);
  EXPECT_NE(in.ptx.find(".entry"), std::string::npos);
  in.resources = m.resources;
  for (const auto& [e, l] : m.lowered) in.display_names[l] = e;
  return check_program(in);
}

TEST(StaticCheckCompiled, ReferenceHasNoFinding) {
  const auto f = compile_and_check("input/rmsnorm/rmsnorm.cuh",
                                   {"rmsnorm_reference<__nv_bfloat16, true>", "rmsnorm_reference<__half, false>"});
  EXPECT_EQ(checks(f), "");
}

TEST(StaticCheckCompiled, HonestSolutionHasNoFinding) {
  const auto f = compile_and_check("solution/rmsnorm/rmsnorm.cuh",
                                   {"rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 2, 2>",
                                    "rmsnorm_kernel<__half, false, 512, 8, 32, 1>",
                                    "rmsnorm_kernel<__nv_bfloat16, false, 128, 4, 1, 6>"});
  EXPECT_EQ(checks(f), "");
}

TEST(StaticCheckCompiled, DeviceLaunchAttackIsFlaggedFromItsPtx) {
  // ptxas refuses the program (no -rdc, so the device runtime is unresolved); the PTX NVVM
  // made before that still shows the launch, which the check must name.
  const std::string src = read(fs::path(AKO_TEST_DIR) / "attacks" / "device_launch.cuh");
  ako::jit::NvrtcProgram prog(src, "device_launch.cuh");
  const std::string expr = "rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 2, 2>";
  prog.add_name_expression(expr);
  const std::string inc = std::string("-I") + AKO_DEFAULT_CUDA_HOME + "/include";
  const std::string attacks = "-I" + (fs::path(AKO_TEST_DIR) / "attacks").string();  // honest_rmsnorm.cuh
  EXPECT_FALSE(prog.compile({"-arch=sm_90a", "-std=c++17", attacks, inc}));
  EXPECT_NE(prog.log().find("Unresolved extern function 'cudaGetParameterBufferV2'"), std::string::npos)
      << prog.log();
  StaticCheckInput in;
  in.file = "tests/attacks/device_launch.cuh";
  in.ptx = prog.ptx();
  const auto f = check_program(in);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].check, "device_launch");
  EXPECT_EQ(f[0].what, "calls cudaGetParameterBufferV2 (a device-side launch)");
}

}  // namespace
