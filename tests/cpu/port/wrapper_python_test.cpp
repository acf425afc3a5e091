// The generated Python wrapper, executed: python3 imports it over stand-ins for torch and SGLang's
// JIT utilities and checks what reaches the kernel. Text checks missed a real bug here: the flag
// and the buffer were both `weight`, and the wrapper rebound the name to a bool.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "cpu/port/engine_fixture.hpp"
#include "port/mirror.hpp"
#include "port/port.hpp"

namespace ako::port {
namespace {

namespace fs = std::filesystem;
using testing::EngineFixture;
using testing::kMirrorPath;
using testing::kWrapperPath;

// Stand-ins: torch's dtypes and decorator, and load_jit returning a module that records calls.
constexpr const char* kHarness = R"PY(
import importlib.util, sys, types
torch = types.ModuleType("torch")
torch.bfloat16, torch.float16, torch.float32 = "bf16", "fp16", "fp32"
torch.Tensor = object
torch.dtype = str
torch.compiler = types.SimpleNamespace(assume_constant_result=lambda f: f)
sys.modules["torch"] = torch
calls = []
class Module:
    def __getattr__(self, name):
        return lambda *a: calls.append((name, a))
def cache_once(f):
    memo = {}
    def cached(*a):
        if a not in memo:
            memo[a] = f(*a)
        return memo[a]
    return cached
utils = types.ModuleType("utils")
utils.cache_once = cache_once
utils.make_cpp_args = lambda *a: [str(x) for x in a]
utils.load_jit = lambda name, *args, **kw: (calls.append(("load_jit", args)), Module())[1]
for mod in ("sglang", "sglang.jit_kernel", "sglang.jit_kernel.utils", "sglang.kernels", "sglang.kernels.jit", "sglang.kernels.jit.utils"):
    sys.modules[mod] = utils
class T:
    def __init__(self, dtype): self.dtype, self.is_cuda = dtype, True
    def is_contiguous(self): return True
    def data_ptr(self): return 4096
spec = importlib.util.spec_from_file_location("w", sys.argv[1])
w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)
out, x, weight = T("bf16"), T("bf16"), T("bf16")
assert w.ako_rmsnorm(out, x, weight, 1e-6) is True
assert w.ako_rmsnorm(out, x, None, 1e-6) is True
kernel = [a for n, a in calls if n != "load_jit"]
assert kernel[0] == (out, x, weight, 1e-6), kernel[0]
assert kernel[1] == (out, x, x, 1e-6), kernel[1]
assert ("load_jit", ("True", "bf16")) in calls and ("load_jit", ("False", "bf16")) in calls, calls
assert w.ako_rmsnorm(T("fp32x"), T("fp32x"), None, 1e-6) is False
print("wrapper ok")
)PY";

class PortedWrapper : public EngineFixture {};

TEST_F(PortedWrapper, PassesTheWeightTensorAndItsFlagToTheKernel) {
  if (std::system("python3 -c 'import sys; sys.exit(sys.version_info < (3, 8))' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no python3 (3.8 or newer) to execute the generated wrapper";
  MirrorOptions m;
  m.workspace = ws;
  m.engine = engine;
  m.task = "rmsnorm";
  m.path = kMirrorPath;
  m.compile_check = false;
  mirror_kernel(m);
  PortOptions o;
  o.workspace = ws;
  o.engine = engine;
  o.date = "20261123";
  port_solution(o);
  const fs::path harness = ws / "wrapper_harness.py";
  std::ofstream(harness) << kHarness;
  const std::string cmd = "python3 " + harness.string() + " " + (engine / kWrapperPath).string() + " 2>&1";
  std::string output;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[512];
  while (fgets(buf, sizeof buf, p)) output += buf;
  EXPECT_EQ(pclose(p), 0) << output;
  EXPECT_NE(output.find("wrapper ok"), std::string::npos) << output;
}

}  // namespace
}  // namespace ako::port
