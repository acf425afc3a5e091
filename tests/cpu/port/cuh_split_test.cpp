// The splitter finds SGLang's host glue and engine includes and leaves the device part whole.
#include <gtest/gtest.h>

#include "port/cuh_split.hpp"
#include "cpu/port/engine_fixture.hpp"
#include "port/line_diff.hpp"

namespace ako::port {
namespace {

const std::vector<std::string> kMarkers = {"TensorView", "TensorMatcher", "LaunchKernel", "TVM_FFI"};
const std::vector<std::string> kHostOnly = {"sgl_kernel/tensor.h", "sgl_kernel/utils.h", "tvm/", "dlpack/"};

TEST(CuhSplit, TakesOutTheHostStructAndDescribesItsEntryPoint) {
  const SplitCuh s = split_cuh(testing::kEngineKernel, kMarkers, kHostOnly);
  ASSERT_EQ(s.host_glue.size(), 1u);
  EXPECT_EQ(s.host_glue[0].kind, "struct");
  EXPECT_EQ(s.host_glue[0].name, "ToyRMSNormKernel");
  EXPECT_EQ(s.host_glue[0].template_header, "template <int64_t kDim, bool kUsePDL, typename DType>");
  EXPECT_NE(s.host_glue[0].entry.find("static void run(const tvm::ffi::TensorView input"), std::string::npos);
  EXPECT_GT(s.host_glue[0].last_line, s.host_glue[0].first_line);
  EXPECT_EQ(s.device_text.find("TensorMatcher"), std::string::npos);
  EXPECT_EQ(s.device_text.find("LaunchKernel"), std::string::npos);
  EXPECT_NE(s.device_text.find("__global__ void toy_rmsnorm"), std::string::npos);
  EXPECT_NE(s.device_text.find("struct ToyNormParams"), std::string::npos);
  EXPECT_NE(s.device_text.find("host glue removed: struct ToyRMSNormKernel"), std::string::npos);
}

TEST(CuhSplit, DropsHostOnlyIncludesAndKeepsTheDeviceHeaders) {
  const SplitCuh s = split_cuh(testing::kEngineKernel, kMarkers, kHostOnly);
  ASSERT_EQ(s.includes.size(), 4u);
  EXPECT_TRUE(s.includes[0].host_only) << s.includes[0].target;   // sgl_kernel/tensor.h
  EXPECT_TRUE(s.includes[1].host_only) << s.includes[1].target;   // sgl_kernel/utils.h
  EXPECT_FALSE(s.includes[2].host_only) << s.includes[2].target;  // sgl_kernel/utils.cuh: device helpers
  EXPECT_TRUE(s.includes[3].host_only) << s.includes[3].target;   // tvm/ffi/...
  EXPECT_NE(s.device_text.find("#include <sgl_kernel/utils.cuh>"), std::string::npos);
  EXPECT_EQ(s.device_text.find("#include <sgl_kernel/tensor.h>"), std::string::npos);
  EXPECT_EQ(s.device_text.find("#include <tvm/"), std::string::npos);
  EXPECT_NE(s.device_text.find("host-side header <sgl_kernel/tensor.h> dropped"), std::string::npos);
  EXPECT_EQ(s.device_text.rfind("#pragma once", 0), 0u);
}

TEST(CuhSplit, NestedNamespacesFreeFunctionsAndBracesInLiterals) {
  const std::string text =
      "#include <cuda_fp16.h>\n"
      "namespace sglang {\nnamespace device::ptx {\n__device__ void f() { const char* s = \"}{\"; (void)s; }\n}\n"
      "// a comment with TensorView in it does not make the next declaration host glue\n"
      "constexpr int kTable[] = {1, 2, 3};\n"
      "inline void launch_it(tvm::ffi::TensorView t) {\n  if (t.ndim()) { LaunchKernel(1, 1, t.device())(k); }\n}\n"
      "}  // namespace sglang\n";
  const SplitCuh s = split_cuh(text, kMarkers, kHostOnly);
  ASSERT_EQ(s.host_glue.size(), 1u);
  EXPECT_EQ(s.host_glue[0].kind, "function");
  EXPECT_EQ(s.host_glue[0].name, "launch_it");
  EXPECT_NE(s.device_text.find("constexpr int kTable[] = {1, 2, 3};"), std::string::npos);
  EXPECT_NE(s.device_text.find("__device__ void f()"), std::string::npos);
  EXPECT_FALSE(s.includes[0].host_only);
}

// SGLang's qknorm.cuh picks its host struct through an alias; the alias names removed glue, so it
// goes too (else NVRTC meets a template it never saw), and the device code beside it stays.
TEST(CuhSplit, AnAliasNamingRemovedHostGlueGoesWithIt) {
  const std::string text =
      "namespace sglang {\n"
      "template <int D> __global__ void k_warp(int* p) { p[0] = D; }\n"
      "template <int D> inline constexpr bool kWide = D > 256;\n"
      "template <int D>\nstruct WarpKernel {\n  static void run(tvm::ffi::TensorView t) { (void)t; }\n};\n"
      "template <int D>\nstruct CtaKernel {\n  static void run(tvm::ffi::TensorView t) { (void)t; }\n};\n"
      "template <int D>\nusing PickKernel = std::conditional_t<kWide<D>, CtaKernel<D>, WarpKernel<D>>;\n"
      "template <int D>\nusing PickTwice = PickKernel<D>;\n"
      "}  // namespace sglang\n";
  const SplitCuh s = split_cuh(text, kMarkers, kHostOnly);
  ASSERT_EQ(s.host_glue.size(), 4u);
  EXPECT_EQ(s.host_glue[2].kind, "alias");
  EXPECT_EQ(s.host_glue[2].name, "PickKernel");
  EXPECT_EQ(s.host_glue[3].name, "PickTwice");  // names only the removed alias
  EXPECT_EQ(s.device_text.find("std::conditional_t"), std::string::npos);
  EXPECT_EQ(s.device_text.find("using PickTwice"), std::string::npos);
  EXPECT_NE(s.device_text.find("host glue removed: alias PickKernel"), std::string::npos);
  EXPECT_NE(s.device_text.find("__global__ void k_warp"), std::string::npos);
  EXPECT_NE(s.device_text.find("inline constexpr bool kWide"), std::string::npos);
}

TEST(LineDiff, ShowsOnlyTheChangedLinesWithContext) {
  const std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
  const std::string d = unified_diff(a, b, "a/x", "b/x", 2);
  EXPECT_NE(d.find("--- a/x\n+++ b/x\n@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+five\n 6\n 7\n"), std::string::npos) << d;
  EXPECT_EQ(unified_diff(a, a, "a", "b"), "");
  EXPECT_EQ(changed_line_count(a, b), 2);
  EXPECT_NE(unified_diff("", "x\n", "/dev/null", "b/x").find("@@ -0,0 +1,1 @@\n+x\n"), std::string::npos);
}

}  // namespace
}  // namespace ako::port
