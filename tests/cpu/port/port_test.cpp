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
  // The H100 config's classes, first match wins, each its own instantiation.
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

// The engine's kernel for a family may be Triton (SGLang's LayerNorm norm_infer): mirror records
// it, with nothing to compile, and port ports beside it and still refuses when it changes.
constexpr const char* kTritonPath = "python/sglang/jit_kernel/diffusion/norm_triton.py";
constexpr const char* kTritonKernel = "import triton\n\n@triton.jit\ndef _norm_infer_kernel(x):\n    pass\n";

TEST_F(Port, APythonEngineKernelIsRecordedOnlyAndGuardsThePortAgainstDrift) {
  testing::write_text(engine / kTritonPath, kTritonKernel);
  git(engine, "add -A");
  git(engine, "commit -qm 'engine: a Triton norm'");
  fs::remove(ws / "solution/rmsnorm/provenance.json");
  MirrorOptions m;
  m.workspace = ws;
  m.engine = engine;
  m.task = "rmsnorm";
  m.path = kTritonPath;
  const MirrorResult r = mirror_kernel(m);
  EXPECT_TRUE(r.python_kernel);
  EXPECT_FALSE(r.compile_checked);  // nothing for NVRTC, though compile_check was asked for
  EXPECT_EQ(r.written, (std::vector<std::string>{"input/rmsnorm/engine/norm_triton.engine.py", "solution/rmsnorm/provenance.json"}));
  EXPECT_FALSE(fs::exists(ws / "input/rmsnorm/engine/norm_triton.py"));  // no device part
  const auto saved = load_provenance(ws / "solution/rmsnorm/provenance.json");
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->mirrored.path, kTritonPath);
  EXPECT_EQ(saved->mirrored.sha256, sha256_of(kTritonKernel));
  EXPECT_TRUE(saved->device_copy.empty());
  EXPECT_TRUE(saved->host_glue.empty());
  EXPECT_TRUE(saved->engine_headers.empty());
  EXPECT_EQ(slurp(ws / saved->verbatim_copy), kTritonKernel);

  const PortResult p = port_solution(options());
  EXPECT_FALSE(p.unchanged);
  EXPECT_TRUE(fs::exists(engine / kKernelPath));
  EXPECT_NE(slurp(engine / kKernelPath).find("measured against the engine's " + std::string(kTritonPath)), std::string::npos);

  git(engine, "add -A");
  git(engine, "commit -qm 'ako port'");
  testing::write_text(engine / kTritonPath, std::string(kTritonKernel) + "    # tuned\n");
  git(engine, "commit -qam 'engine: change the Triton norm'");
  const PortRefusal e = refusal([&] { port_solution(options()); });
  EXPECT_EQ(e.problem, "drift");
  std::string lines;
  for (const auto& d : e.details) lines += d + "\n";
  EXPECT_NE(lines.find("+    # tuned"), std::string::npos) << lines;
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
  const fs::path config = ws / "solution/rmsnorm/configs/default.json";
  std::string k = slurp(config);
  const std::string was = "hand-written classes";
  k.replace(k.find(was), was.size(), "retuned");  // the config's source is in the kernel file: a new port differs
  testing::write_text(config, k);
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

// Two device configs (the H100's and an H200's) and default.json: each becomes its own class
// dispatch, and dispatch() picks one at run time by the CUDA name of the tensors' device.
class PortTwoDevices : public Port {
 protected:
  static constexpr const char* kH200File = "solution/rmsnorm/configs/device_name=NVIDIA_H200.json";
  void SetUp() override {
    Port::SetUp();
    std::string h200 = slurp(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json");
    // A distinct choice for 3072 columns, so the H200's dispatch shows it came from its file.
    const std::string c3072 = R"("BLOCK": 256, "VEC": 8, "ROWS_PER_BLOCK": 2, "CHUNKS": 3)";
    h200.replace(h200.find(c3072), c3072.size(), R"("BLOCK": 512, "VEC": 8, "ROWS_PER_BLOCK": 4, "CHUNKS": 3)");
    h200.replace(h200.find("\"source\": \""), 11, "\"source\": \"H200 test; ");
    testing::write_text(ws / kH200File, h200);
  }
  // The text of one generated function, from its signature to the next blank line.
  static std::string function_text(const std::string& k, const std::string& signature) {
    const size_t from = k.find(signature);
    return from == std::string::npos ? std::string() : k.substr(from, k.find("\n\n", from) - from);
  }
};

TEST_F(PortTwoDevices, EveryDeviceConfigIsBakedAndChosenByTheDeviceName) {
  const PortResult r = port_solution(options());
  const std::string k = slurp(engine / kKernelPath);
  EXPECT_NE(k.find("// Tuned configs baked in (chosen at run time by the CUDA device name of the tensors' device):\n"
                   "//   NVIDIA H100 80GB HBM3: solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json (\"hand-written"),
            std::string::npos)
      << k;
  EXPECT_NE(k.find("//   NVIDIA H200: solution/rmsnorm/configs/device_name=NVIDIA_H200.json (\"H200 test; "), std::string::npos);
  EXPECT_NE(k.find("//   any other device: solution/rmsnorm/configs/default.json (\"hand-written"), std::string::npos);
  EXPECT_NE(k.find("#include <cuda_runtime.h>"), std::string::npos);
  EXPECT_NE(k.find("cudaGetDeviceProperties(&prop, ordinal)"), std::string::npos);
  EXPECT_NE(k.find("\"NVIDIA_H100_80GB_HBM3\",  // solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json"),
            std::string::npos);
  EXPECT_NE(k.find("\"NVIDIA_H200\",  // solution/rmsnorm/configs/device_name=NVIDIA_H200.json"), std::string::npos);
  const std::string args = "(device, dim_rows, dim_cols, out, x, weight, eps);";
  EXPECT_NE(k.find("case 0: return dispatch_device_0<DType, kWeight>" + args + "  // NVIDIA H100 80GB HBM3"),
            std::string::npos)
      << k;
  EXPECT_NE(k.find("case 1: return dispatch_device_1<DType, kWeight>" + args + "  // NVIDIA H200"), std::string::npos);
  EXPECT_NE(k.find("default: return dispatch_default<DType, kWeight>" + args), std::string::npos);

  // Each dispatch holds its own file's classes.
  const std::string h100 = function_text(k, "void dispatch_device_0("), h200 = function_text(k, "void dispatch_device_1("),
                    fallback = function_text(k, "void dispatch_default(");
  const std::string hand = "if (dim_cols <= 3072) return launch<DType, kWeight, 256, 3, 2, 8>";
  const std::string retuned = "if (dim_cols <= 3072) return launch<DType, kWeight, 512, 3, 4, 8>";
  EXPECT_NE(h100.find(hand), std::string::npos) << h100;
  EXPECT_NE(h200.find(retuned), std::string::npos) << h200;
  EXPECT_EQ(h200.find(hand), std::string::npos) << h200;
  EXPECT_NE(fallback.find(hand), std::string::npos) << fallback;

  ASSERT_EQ(r.baked.size(), 3u);
  EXPECT_EQ(r.baked[1].rfind("NVIDIA H200: solution/rmsnorm/configs/device_name=NVIDIA_H200.json", 0), 0u) << r.baked[1];
  const std::string pr = slurp(ws / "solution/rmsnorm/PR.md");
  EXPECT_NE(pr.find("One config per device, baked in and chosen at run time by the CUDA device name"), std::string::npos)
      << pr;
  EXPECT_NE(pr.find("### NVIDIA H200 (`solution/rmsnorm/configs/device_name=NVIDIA_H200.json`)"), std::string::npos)
      << pr;
  EXPECT_NE(pr.find("### default.json (`solution/rmsnorm/configs/default.json`)"), std::string::npos) << pr;
}

TEST_F(PortTwoDevices, DeviceOptionBakesOnlyThatDevicesConfigBesideDefault) {
  PortOptions o = options();
  o.devices = {"NVIDIA H200"};
  o.dry_run = true;
  const PortResult r = port_solution(o);
  const std::string& k = r.files[0].after;
  EXPECT_NE(k.find("\"NVIDIA_H200\","), std::string::npos);
  EXPECT_EQ(k.find("\"NVIDIA_H100_80GB_HBM3\","), std::string::npos);
  EXPECT_NE(k.find("case 0: return dispatch_device_0"), std::string::npos);
  EXPECT_EQ(k.find("case 1:"), std::string::npos);
  ASSERT_EQ(r.baked.size(), 2u);
  EXPECT_EQ(r.baked[1].rfind("any other device: solution/rmsnorm/configs/default.json", 0), 0u) << r.baked[1];

  o.devices = {"NVIDIA B200"};
  try {
    port_solution(o);
    FAIL() << "ported a device with no config";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--device NVIDIA B200: no config file for it in solution/rmsnorm/configs/ "
                                         "(device files: NVIDIA H100 80GB HBM3, NVIDIA H200)"),
              std::string::npos)
        << e.what();
  }
}

// default.json alone: one class dispatch, no device lookup at all.
TEST_F(Port, WithOnlyDefaultJsonThereIsNoDeviceLookup) {
  for (const auto& f : fs::directory_iterator(ws / "solution/rmsnorm/configs"))
    if (f.path().filename() != "default.json") fs::remove(f.path());
  PortOptions o = options();
  o.dry_run = true;
  const PortResult r = port_solution(o);
  const std::string& k = r.files[0].after;
  EXPECT_NE(k.find("// Tuned configs baked in:\n//   every device: solution/rmsnorm/configs/default.json"),
            std::string::npos)
      << k;
  EXPECT_NE(k.find("void dispatch(DLDevice device,"), std::string::npos);
  EXPECT_EQ(k.find("cudaGetDeviceProperties"), std::string::npos);
  EXPECT_EQ(k.find("dispatch_default"), std::string::npos);
  EXPECT_NE(k.find("if (dim_cols <= 3072) return launch<DType, kWeight, 256, 3, 2, 8>"), std::string::npos);
}

}  // namespace
}  // namespace ako::port
