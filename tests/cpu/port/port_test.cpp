// ako port on a throw-away SGLang-layout engine: branch, files, idempotence, dry run, refusals,
// and the ported device code compiling with NVRTC for sm_90a.
#include <gtest/gtest.h>

#include "cpu/port/engine_fixture.hpp"
#include "jit/compiler.hpp"
#include "port/mirror.hpp"
#include "port/port.hpp"

namespace ako::port {
namespace {

namespace fs = std::filesystem;
using testing::EngineFixture;
using testing::kKernelPath;
using testing::kMirrorPath;
using testing::kWrapperPath;
using testing::slurp;

class Port : public EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    MirrorOptions m;
    m.workspace = ws;
    m.engine = engine;
    m.task = "rmsnorm";
    m.path = kMirrorPath;
    m.compile_check = false;
    mirror_kernel(m);
  }
  PortOptions options() {
    PortOptions o;
    o.workspace = ws;
    o.engine = engine;
    o.date = "20261123";
    return o;
  }
  template <class F>
  PortRefusal refusal(F&& f) {
    try {
      f();
    } catch (const PortRefusal& e) {
      return e;
    }
    ADD_FAILURE() << "not refused";
    return PortRefusal("", "", {}, "");
  }
};

TEST_F(Port, WritesKernelAndWrapperOnANewBranchAndRecordsThem) {
  const std::string start = head();
  const PortResult r = port_solution(options());
  EXPECT_EQ(r.task, "rmsnorm");  // the only mirrored task
  EXPECT_TRUE(r.branch_created);
  EXPECT_EQ(r.branch, "ako/rmsnorm-20261123");
  EXPECT_EQ(branch(), "ako/rmsnorm-20261123");
  EXPECT_EQ(head(), start);  // a branch, not a commit: the user reviews and commits
  const std::string kernel = slurp(engine / kKernelPath), wrapper = slurp(engine / kWrapperPath);
  EXPECT_NE(kernel.find("struct AkoRmsnormKernel {"), std::string::npos);
  EXPECT_NE(kernel.find("static void run(const tvm::ffi::TensorView out"), std::string::npos);
  EXPECT_NE(kernel.find("TensorMatcher({rows, cols})"), std::string::npos);
  // Checked explicitly: SGLang's with_device(device) drops the symbol's kDLCUDA restriction.
  EXPECT_NE(kernel.find("RuntimeCheck(device.unwrap().device_type == kDLCUDA"), std::string::npos);
  EXPECT_NE(kernel.find("LaunchKernel(dim3("), std::string::npos);
  EXPECT_NE(kernel.find("#include <sgl_kernel/tensor.h>"), std::string::npos);
  EXPECT_NE(wrapper.find("def can_use_ako_rmsnorm(weight: bool, dtype: torch.dtype) -> bool:"), std::string::npos);
  EXPECT_NE(wrapper.find("from sglang.jit_kernel.utils import cache_once, load_jit, make_cpp_args"), std::string::npos);
  EXPECT_NE(wrapper.find("cuda_files=[\"diffusion/rmsnorm.cuh\"]"), std::string::npos);
  EXPECT_NE(wrapper.find("f\"AkoRmsnormKernel<{args}>::run\""), std::string::npos);
  const auto prov = load_provenance(ws / "solution/rmsnorm/provenance.json");
  ASSERT_TRUE(prov);
  ASSERT_NE(find_ported(*prov, kKernelPath), nullptr);
  EXPECT_EQ(find_ported(*prov, kKernelPath)->sha256, sha256_of(kernel));
  EXPECT_EQ(find_ported(*prov, kWrapperPath)->commit, start);
  EXPECT_TRUE(fs::exists(ws / "solution/rmsnorm/PR.md"));
}

TEST_F(Port, BakesEveryConfigClassInOrderAsACompileTimeDispatch) {
  port_solution(options());
  const std::string k = slurp(engine / kKernelPath);
  // config.json's classes, first match wins, each its own instantiation.
  const size_t odd = k.find("if (dim_cols % 2 != 0) return launch<DType, kWeight, 256, 1, 1, 1>");
  const size_t c3072 = k.find("if (dim_cols <= 3072) return launch<DType, kWeight, 256, 3, 2, 8>");
  const size_t fallback = k.find("// no class matched");
  ASSERT_NE(odd, std::string::npos) << k;
  ASSERT_NE(c3072, std::string::npos) << k;
  EXPECT_LT(odd, c3072);
  EXPECT_LT(c3072, fallback);
  EXPECT_NE(k.find("RuntimeCheck(dim_cols % VEC == 0"), std::string::npos);  // the constraints, checked per launch
  EXPECT_NE(k.find("static_cast<unsigned>(ako_ceil_div(dim_rows, ROWS_PER_BLOCK))"), std::string::npos);
}

TEST_F(Port, ThePortedDeviceCodeCompilesWithNvrtcForSm90a) {
  const PortResult r = port_solution(options());
  EXPECT_NE(slurp(engine / kKernelPath).find("namespace ako_port_rmsnorm {"), std::string::npos);
  const fs::path src = dir / "ported_device.cuh";
  testing::write_text(src, r.device_section);
  jit::CompileRequest req;
  req.source = src;
  req.arch = "sm_90a";
  // Two classes' instantiations (cols-3072 with a weight, head-dim-128 without), as the
  // kernel's template spells them: T, HAS_WEIGHT, BLOCK, VEC, ROWS_PER_BLOCK, CHUNKS.
  req.name_expressions = {"ako_port_rmsnorm::rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 2, 3>",
                          "ako_port_rmsnorm::rmsnorm_kernel<__half, false, 512, 8, 32, 1>"};
  jit::CompileOptions co;
  co.use_cache = false;
  const jit::CompiledModule m = jit::compile(req, co);
  EXPECT_EQ(m.lowered.size(), 2u);
}

TEST_F(Port, RePortIsIdempotentBeforeAndAfterTheUserCommits) {
  port_solution(options());
  const std::string kernel = slurp(engine / kKernelPath), st = status();
  const PortResult again = port_solution(options());  // ako's own uncommitted output is not "dirt"
  EXPECT_TRUE(again.unchanged);
  EXPECT_FALSE(again.branch_created);
  EXPECT_EQ(slurp(engine / kKernelPath), kernel);
  EXPECT_EQ(status(), st);
  git(engine, "add -A");
  git(engine, "commit -qm 'ako port'");
  const PortResult third = port_solution(options());
  EXPECT_TRUE(third.unchanged);
  EXPECT_EQ(status(), "");
  EXPECT_EQ(branch(), "ako/rmsnorm-20261123");
}

TEST_F(Port, DryRunShowsTheDiffAndWritesNothing) {
  const std::string before = status(), start = head();
  PortOptions o = options();
  o.dry_run = true;
  const PortResult r = port_solution(o);
  EXPECT_TRUE(r.branch_needed);
  EXPECT_FALSE(r.branch_created);
  EXPECT_NE(r.diff.find("--- /dev/null\n+++ b/" + std::string(kKernelPath)), std::string::npos);
  EXPECT_NE(r.diff.find("+struct AkoRmsnormKernel {"), std::string::npos);
  EXPECT_EQ(status(), before);
  EXPECT_EQ(branch(), "main");
  EXPECT_EQ(head(), start);
  EXPECT_FALSE(fs::exists(engine / kKernelPath));
  EXPECT_FALSE(fs::exists(ws / "solution/rmsnorm/PR.md"));
  EXPECT_EQ(load_provenance(ws / "solution/rmsnorm/provenance.json")->ported.size(), 0u);
}

TEST_F(Port, DriftOfTheMirroredKernelIsRefusedWithTheLines) {
  std::string k = testing::kEngineKernel;
  k.replace(k.find("// One warp per row"), 19, "// One warp per row, now vectorised");
  testing::write_text(engine / kMirrorPath, k);
  git(engine, "commit -qam 'engine: change the kernel'");
  const PortRefusal e = refusal([&] { port_solution(options()); });
  EXPECT_EQ(e.problem, "drift");
  std::string lines;
  for (const auto& d : e.details) lines += d + "\n";
  EXPECT_NE(lines.find("-// One warp per row; kDim a multiple of 32."), std::string::npos) << lines;
  EXPECT_NE(lines.find("+// One warp per row, now vectorised; kDim a multiple of 32."), std::string::npos) << lines;
  EXPECT_NE(e.fix.find("ako mirror"), std::string::npos);
  EXPECT_FALSE(fs::exists(engine / kKernelPath));
  EXPECT_EQ(branch(), "main");
}

TEST_F(Port, DriftOfAnEngineHeaderTheKernelCompilesAgainstIsRefused) {
  std::string w = testing::kEngineWarp;
  w.replace(w.find("offset /= 2"), 11, "offset >>= 1");
  testing::write_text(engine / testing::kWarpPath, w);
  git(engine, "commit -qam 'engine: change a device helper'");
  const PortRefusal e = refusal([&] { port_solution(options()); });
  EXPECT_EQ(e.problem, "drift");
  EXPECT_NE(std::string(e.what()).find(testing::kWarpPath), std::string::npos) << e.what();
  std::string lines;
  for (const auto& d : e.details) lines += d + "\n";
  EXPECT_NE(lines.find("+  for (uint32_t offset = 16; offset > 0; offset >>= 1)"), std::string::npos) << lines;
  EXPECT_NE(e.fix.find("ako mirror"), std::string::npos);
  EXPECT_FALSE(fs::exists(engine / kKernelPath));
}

TEST_F(Port, ADirtyEngineIsRefusedWithThePaths) {
  testing::write_text(engine / "notes.txt", "wip\n");
  const PortRefusal e = refusal([&] { port_solution(options()); });
  EXPECT_EQ(e.problem, "dirty-engine");
  ASSERT_EQ(e.details.size(), 1u);
  EXPECT_EQ(e.details[0], "notes.txt");
  EXPECT_NE(e.fix.find("stash"), std::string::npos);
  EXPECT_FALSE(fs::exists(engine / kKernelPath));
}

TEST_F(Port, AnEngineFileAkoDidNotWriteIsNeverOverwritten) {
  testing::write_text(engine / kKernelPath, "// someone else's kernel\n");
  git(engine, "add -A");
  git(engine, "commit -qm 'other rmsnorm'");
  const PortRefusal e = refusal([&] { port_solution(options()); });
  EXPECT_EQ(e.problem, "not-ako-file");
  EXPECT_EQ(slurp(engine / kKernelPath), "// someone else's kernel\n");
}

TEST_F(Port, AnEditToAkosOwnFileAfterThePortIsRefusedToo) {
  port_solution(options());
  git(engine, "add -A");
  git(engine, "commit -qm 'ako port'");
  testing::write_text(engine / kWrapperPath, slurp(engine / kWrapperPath) + "# tweak\n");
  git(engine, "commit -qam 'tweak the wrapper'");
  PortOptions o = options();
  std::string k = slurp(ws / "solution/rmsnorm/config.json");
  const std::string was = "hand-written defaults before tuning";
  k.replace(k.find(was), was.size(), "retuned");  // the config's source is in the kernel file: a new port differs
  testing::write_text(ws / "solution/rmsnorm/config.json", k);
  const PortRefusal e = refusal([&] { port_solution(o); });
  EXPECT_EQ(e.problem, "not-ako-file");
  EXPECT_NE(std::string(e.what()).find("changed since ako ported it"), std::string::npos) << e.what();
}

TEST_F(Port, ADetachedHeadIsRefused) {
  git(engine, "checkout -q --detach");
  EXPECT_EQ(refusal([&] { port_solution(options()); }).problem, "detached-head");
}

TEST_F(Port, OnANonDefaultBranchItStaysThere) {
  git(engine, "switch -q -c feature/norms");
  const PortResult r = port_solution(options());
  EXPECT_FALSE(r.branch_needed);
  EXPECT_EQ(r.branch, "feature/norms");
  EXPECT_EQ(branch(), "feature/norms");
}

TEST_F(Port, TheNewerLayoutProfileWritesUnderPythonSglangKernels) {
  for (const char* root : {"python/sglang/kernels/jit/csrc", "python/sglang/kernels/jit/include", "python/sglang/kernels/ops"})
    fs::create_directories(engine / root);  // the layout's roots (empty folders: git sees no change)
  PortOptions o = options();
  o.profile = "sglang-kernels";
  o.dry_run = true;
  const PortResult r = port_solution(o);
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].path, "python/sglang/kernels/jit/csrc/diffusion/rmsnorm.cuh");
  EXPECT_EQ(r.files[1].path, "python/sglang/kernels/ops/diffusion/norm/rmsnorm_jit.py");
  EXPECT_NE(r.files[0].after.find("namespace sglang {"), std::string::npos);
  EXPECT_NE(r.files[1].after.find("from sglang.kernels.jit.utils import"), std::string::npos);
}

}  // namespace
}  // namespace ako::port
