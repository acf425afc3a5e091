#pragma once
// Throw-away engine repositories with SGLang's layout, and an ako workspace beside them made
// from this repository's rmsnorm task and engine profiles. The engine kernel is a small
// stand-in written here in SGLang's conventions (device kernel + XxxKernel::run host glue over
// sgl_kernel helpers); set-up uses the git CLI (fixtures only; the product uses libgit2).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cpu/git/repo_fixture.hpp"

namespace ako::port::testing {

namespace fs = std::filesystem;
using ako::git::testing::shell;
using ako::git::testing::write_text;

inline std::string slurp(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline constexpr const char* kMirrorPath = "python/sglang/jit_kernel/csrc/elementwise/rmsnorm.cuh";
inline constexpr const char* kKernelPath = "python/sglang/jit_kernel/csrc/diffusion/rmsnorm.cuh";
inline constexpr const char* kWrapperPath = "python/sglang/jit_kernel/diffusion/rmsnorm.py";

// An engine kernel in SGLang's conventions, small enough to read in the test.
inline const char* kEngineKernel = R"(#include <sgl_kernel/tensor.h>
#include <sgl_kernel/utils.h>
#include <sgl_kernel/utils.cuh>

#include <tvm/ffi/container/tensor.h>

namespace {

struct ToyNormParams {
  const void* input;
  void* output;
  float eps;
};

// One warp per row; kDim a multiple of 32.
template <int64_t kDim, bool kUsePDL, typename T>
__global__ void toy_rmsnorm(const ToyNormParams params) {
  using namespace device;
  PDLWaitPrimary<kUsePDL>();
  const int64_t row = blockIdx.x;
  const T* x = static_cast<const T*>(params.input) + row * kDim;
  T* y = static_cast<T*>(params.output) + row * kDim;
  float sum = 0.f;
  for (uint32_t i = threadIdx.x; i < kDim; i += kWarpThreads) {
    const float v = static_cast<float>(x[i]);
    sum += v * v;
  }
  const float scale = rsqrtf(warp::reduce_sum(sum) / kDim + params.eps);
  for (uint32_t i = threadIdx.x; i < kDim; i += kWarpThreads) y[i] = static_cast<T>(static_cast<float>(x[i]) * scale);
  PDLTriggerSecondary<kUsePDL>();
}

template <int64_t kDim, bool kUsePDL, typename DType>
struct ToyRMSNormKernel {
  static void run(const tvm::ffi::TensorView input, const tvm::ffi::TensorView output, float eps) {
    using namespace host;
    auto N = SymbolicSize{"num_tokens"};
    auto device = SymbolicDevice{};
    device.set_options<kDLCUDA>();
    TensorMatcher({N, kDim}).with_dtype<DType>().with_device(device).verify(input);
    TensorMatcher({N, kDim}).with_dtype<DType>().with_device(device).verify(output);
    const auto params = ToyNormParams{input.data_ptr(), output.data_ptr(), eps};
    LaunchKernel(static_cast<uint32_t>(N.unwrap()), 32, device.unwrap()).enable_pdl(kUsePDL)(toy_rmsnorm<kDim, kUsePDL, DType>, params);
  }
};

}  // namespace
)";

// The engine's own device helpers under its include root, in sgl_kernel's conventions: what the
// mirrored device part is compiled against. They use <cstdint> / <type_traits> (which NVRTC
// lacks: the profile's overlay stands in) and include the host-side <sgl_kernel/utils.h>, which
// this engine does not even have (the overlay's stand-in must be found), and a sibling by quotes.
inline constexpr const char* kHelpersPath = "python/sglang/jit_kernel/include/sgl_kernel/utils.cuh";
inline constexpr const char* kWarpPath = "python/sglang/jit_kernel/include/sgl_kernel/warp.cuh";
inline const char* kEngineHelpers = R"(#pragma once
#include <sgl_kernel/utils.h>

#include <cstdint>
#include <type_traits>

#define SGL_DEVICE __forceinline__ __device__

namespace device {
inline constexpr uint32_t kWarpThreads = 32;
template <bool kUsePDL>
SGL_DEVICE void PDLWaitPrimary() {
  if constexpr (kUsePDL) asm volatile("griddepcontrol.wait;" ::: "memory");
}
template <bool kUsePDL>
SGL_DEVICE void PDLTriggerSecondary() {
  if constexpr (kUsePDL) asm volatile("griddepcontrol.launch_dependents;" :::);
}
}  // namespace device

#include "warp.cuh"
)";
inline const char* kEngineWarp = R"(#pragma once
#include <cstdint>
#include <type_traits>

namespace device::warp {
template <typename T>
SGL_DEVICE T reduce_sum(T v) {
  static_assert(std::is_floating_point_v<T>, "a float sum");
  for (uint32_t offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
}  // namespace device::warp
)";

class EngineFixture : public ::testing::Test {
 protected:
  fs::path dir, engine, ws;

  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-port-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
    engine = dir / "sglang";
    ws = dir / "ws";
    // The engine: main branch, SGLang's jit_kernel layout.
    fs::create_directories(engine);
    git(engine, "init -q -b main");
    write_text(engine / kMirrorPath, kEngineKernel);
    write_text(engine / kHelpersPath, kEngineHelpers);
    write_text(engine / kWarpPath, kEngineWarp);
    write_text(engine / "python/sglang/jit_kernel/utils.py", "# load_jit lives here\n");
    write_text(engine / ".gitignore", "__pycache__/\n");
    git(engine, "add -A");
    git(engine, "commit -q -m 'engine: toy rmsnorm'");
    // The workspace: this repository's rmsnorm task, solution, reference and engine profiles.
    const fs::path src = fs::path(AKO_TEST_DIR).parent_path();
    for (const char* p : {"tasks/rmsnorm", "solution/rmsnorm", "input/rmsnorm", "engines"}) {
      fs::create_directories(ws / p);
      fs::copy(src / p, ws / p, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    }
    fs::remove(ws / "solution/rmsnorm/provenance.json");
    fs::remove(ws / "solution/rmsnorm/PR.md");
  }
  void TearDown() override {
    if (!std::getenv("AKO_KEEP_TEST_DIRS")) fs::remove_all(dir);
  }

  std::string git(const fs::path& where, const std::string& args) {
    const auto r = shell("cd '" + where.string() + "' && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null " +
                         "git -c user.name=ako-test -c user.email=test@ako -c commit.gpgsign=false " + args);
    if (r.status != 0) throw std::runtime_error("git " + args + " failed in " + where.string() + ":\n" + r.out);
    return r.out;
  }
  std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  std::string head() { return trimmed(git(engine, "rev-parse HEAD")); }
  std::string branch() { return trimmed(git(engine, "rev-parse --abbrev-ref HEAD")); }
  std::string status() { return git(engine, "status --porcelain"); }
};

}  // namespace ako::port::testing
