// The port's host glue for the buffer and axis kinds of ako.task/2, one small synthetic task
// each: in place, integer tensors, a dtype chosen by an axis, typed axes (string and integer,
// in the kernel name, a config class and a presence), broadcast extents, a strided view passed
// as its own tensor and a view computed from its storage. Each rendered kernel file is compiled
// with nvcc for sm_90a against stand-in SGLang headers and its entry point called on fake
// tensors (port_v2_fixture.hpp); what the port cannot bind is an error naming it.
#include "cpu/port/port_v2_fixture.hpp"

#include "common/error.hpp"
#include "jit/compiler.hpp"

namespace ako::port {
namespace {

using testing::base_doc;
using testing::has;
using testing::json;
using testing::PortV2;

constexpr const char* kIncludes = "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n\n";

#define REQUIRE_NVCC() \
  if (nvcc().empty()) GTEST_SKIP() << "no nvcc (CUDAToolkit_NVCC_EXECUTABLE) to compile the rendered kernel file"

// x is read and written in place; nothing is allocated for it.
TEST_F(PortV2, InPlaceTensorIsAMutablePointerAndTheWrapperReturnsNothingNew) {
  json doc = base_doc("scale_rows", {"N", "C"}, {"x", "w", "n", "c"});
  doc["buffers"] = json::parse(R"([{"name": "x", "role": "inout", "shape": ["N", "C"]},
                                    {"name": "w", "role": "in", "shape": ["C"]}])");
  doc["scalars"] = json::parse(R"([{"name": "n", "type": "i32", "value": "N"}, {"name": "c", "type": "i32", "value": "C"}])");
  doc["solution"].update({{"kernel", "scale_rows<{T}>"}, {"grid", {"N"}}, {"block", {"128"}}});
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T>
__global__ void scale_rows(T* x, const T* w, int n, int c) {
  if (static_cast<int>(blockIdx.x) >= n) return;
  for (int i = threadIdx.x; i < c; i += blockDim.x) x[blockIdx.x * c + i] = T(float(x[blockIdx.x * c + i]) * float(w[i]));
}
)"));
  EXPECT_TRUE(has(r.kernel, "void launch(DLDevice device, int64_t dim_N, int64_t dim_C, DType* x, const DType* w)")) << r.kernel;
  EXPECT_TRUE(has(r.kernel, "static void run(const tvm::ffi::TensorView x,\n                  const tvm::ffi::TensorView w)"));
  EXPECT_TRUE(has(r.kernel, "static_cast<DType*>(x.data_ptr()), static_cast<const DType*>(w.data_ptr())"));
  EXPECT_TRUE(has(r.wrapper, "def ako_scale_rows(x: torch.Tensor, w: torch.Tensor) -> bool:")) << r.wrapper;
  EXPECT_TRUE(has(r.wrapper, "Updates x in place."));
  EXPECT_TRUE(has(r.wrapper, "_jit_ako_scale_rows_module(w.dtype).ako_scale_rows(x, w)"));
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  attempt("ok", [] { AkoScaleRowsKernel<__nv_bfloat16>::run(T(0, {4, 64}, kBf16), T(4096, {64}, kBf16)); });
  attempt("strided", [] { AkoScaleRowsKernel<__nv_bfloat16>::run(S(0, {4, 64}, {128, 1}, kBf16), T(4096, {64}, kBf16)); });
  attempt("fp16 tensors", [] { AkoScaleRowsKernel<__nv_bfloat16>::run(T(0, {4, 64}, kF16), T(4096, {64}, kF16)); });
)");
  EXPECT_TRUE(has(out, "ok: launch grid=4,1,1 block=128,1,1 smem=0 args=@0,@4096,4,64\n")) << out;
  EXPECT_TRUE(has(out, "strided: error x: must be contiguous (stride 0)\n")) << out;
  EXPECT_TRUE(has(out, "fp16 tensors: error dtype mismatch\n")) << out;
}

// An i64 index tensor and a fixed fp32 table beside the case's dtype.
TEST_F(PortV2, IntegerAndFixedDtypeTensorsAreCheckedAndTyped) {
  json doc = base_doc("gather_rows", {"M", "P", "C"}, {"out", "idx", "table", "c"});
  doc["buffers"] = json::parse(R"([
    {"name": "idx", "role": "in", "dtype": "i64", "shape": ["M"], "init": {"dist": "range", "low": "0", "high": "P"}},
    {"name": "table", "role": "in", "dtype": "fp32", "shape": ["P", "C"]},
    {"name": "out", "role": "out", "shape": ["M", "C"]}])");
  doc["scalars"] = json::parse(R"([{"name": "c", "type": "i32", "value": "C"}])");
  doc["solution"].update({{"kernel", "gather_rows<{T}, {T_idx}>"}, {"grid", {"M"}}, {"block", {"64"}}});
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T, typename I>
__global__ void gather_rows(T* out, const I* idx, const float* table, int c) {
  for (int i = threadIdx.x; i < c; i += blockDim.x) out[blockIdx.x * c + i] = T(table[idx[blockIdx.x] * c + i]);
}
)"));
  EXPECT_TRUE(has(r.kernel, "DType* out, const long long* idx, const float* table")) << r.kernel;
  EXPECT_TRUE(has(r.kernel, "::ako_port_gather_rows::gather_rows<DType, long long>"));
  EXPECT_TRUE(has(r.kernel, "TensorMatcher({M}).with_strides({1}).with_dtype<long long>()"));
  EXPECT_TRUE(has(r.kernel, ".with_dtype<float>().with_device(device).verify(table);"));
  EXPECT_TRUE(has(r.wrapper, "    if idx.dtype != torch.int64:\n        return False\n")) << r.wrapper;
  EXPECT_TRUE(has(r.wrapper, "    if table.dtype != torch.float32:\n        return False\n"));
  EXPECT_TRUE(has(r.wrapper, "can_use_ako_gather_rows(out.dtype)")) << r.wrapper;  // the case's dtype: the $dtype output
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  attempt("ok", [] { AkoGatherRowsKernel<__nv_bfloat16>::run(T(0, {8, 32}, kBf16), T(1024, {8}, kI64), T(2048, {16, 32}, kF32)); });
  attempt("i32 index", [] { AkoGatherRowsKernel<__nv_bfloat16>::run(T(0, {8, 32}, kBf16), T(1024, {8}, kI32), T(2048, {16, 32}, kF32)); });
)");
  EXPECT_TRUE(has(out, "ok: launch grid=8,1,1 block=64,1,1 smem=0 args=@0,@1024,@2048,32\n")) << out;
  EXPECT_TRUE(has(out, "i32 index: error dtype mismatch\n")) << out;
}

// scale is in x's dtype or fp32, as the axis scale_dtype says; {T_scale} follows it.
TEST_F(PortV2, ADtypeChosenByAnAxisIsATemplateArgumentAndChecked) {
  json doc = base_doc("scale_mixed", {"N", "C"}, {"out", "x", "scale", "c"});
  doc["axes"] = json::parse(R"([{"name": "scale_dtype", "values": ["same", "fp32"]}])");
  doc["buffers"] = json::parse(R"([{"name": "x", "role": "in", "shape": ["N", "C"]},
    {"name": "scale", "role": "in", "dtype": "$scale_dtype", "shape": ["C"]},
    {"name": "out", "role": "out", "shape": ["N", "C"]}])");
  doc["scalars"] = json::parse(R"([{"name": "c", "type": "i32", "value": "C"}])");
  doc["solution"].update({{"kernel", "apply_scale<{T}, {T_scale}>"}, {"grid", {"N"}}, {"block", {"32"}}});
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T, typename S>
__global__ void apply_scale(T* out, const T* x, const S* scale, int c) {
  for (int i = threadIdx.x; i < c; i += blockDim.x) out[blockIdx.x * c + i] = T(float(x[blockIdx.x * c + i]) * float(scale[i]));
}
)"));
  EXPECT_TRUE(has(r.kernel, "inline constexpr int64_t ako_str_same = 0;\ninline constexpr int64_t ako_str_fp32 = 1;\n")) << r.kernel;
  EXPECT_TRUE(has(r.kernel, "template <typename DType, int64_t kScaleDtype>\n"
                            "using elem_scale = std::conditional_t<kScaleDtype == ako_str_fp32, float, DType>;\n"));
  EXPECT_TRUE(has(r.kernel, "const elem_scale<DType, kScaleDtype>* scale"));
  EXPECT_TRUE(has(r.kernel, "::ako_port_scale_mixed::apply_scale<DType, elem_scale<DType, kScaleDtype>>"));
  EXPECT_TRUE(has(r.kernel, "template <int64_t kScaleDtype, typename DType>\nstruct AkoScaleMixedKernel {"));
  EXPECT_TRUE(has(r.kernel, ".with_dtype<ako_port_scale_mixed_host::elem_scale<DType, kScaleDtype>>()"));
  EXPECT_TRUE(has(r.wrapper, "_AXIS_SCALE_DTYPE = {\"same\": 0, \"fp32\": 1}\n")) << r.wrapper;
  // (integer values map too: an axis may choose an index buffer's dtype, as rope's pos_dtype)
  EXPECT_TRUE(has(r.wrapper, "    if scale.dtype != {\"bf16\": torch.bfloat16, \"fp16\": torch.float16, \"fp32\": torch.float32, "
                             "\"i32\": torch.int32, \"i64\": torch.int64}"
                             ".get(scale_dtype, x.dtype):\n        return False\n")) << r.wrapper;
  EXPECT_TRUE(has(r.wrapper, "args = make_cpp_args(_AXIS_SCALE_DTYPE[scale_dtype], dtype)"));
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  using namespace ako_port_scale_mixed_host;
  attempt("fp32", [] { AkoScaleMixedKernel<ako_str_fp32, __nv_bfloat16>::run(T(0, {4, 32}, kBf16), T(1024, {4, 32}, kBf16), T(2048, {32}, kF32)); });
  attempt("same", [] { AkoScaleMixedKernel<ako_str_same, __half>::run(T(0, {4, 32}, kF16), T(1024, {4, 32}, kF16), T(2048, {32}, kF16)); });
  attempt("bf16 scale for fp32", [] { AkoScaleMixedKernel<ako_str_fp32, __nv_bfloat16>::run(T(0, {4, 32}, kBf16), T(1024, {4, 32}, kBf16), T(2048, {32}, kBf16)); });
)");
  EXPECT_TRUE(has(out, "fp32: launch grid=4,1,1 block=32,1,1 smem=0 args=@0,@1024,@2048,32\n")) << out;
  EXPECT_TRUE(has(out, "same: launch grid=4,1,1 block=32,1,1 smem=0 args=@0,@1024,@2048,32\n")) << out;
  EXPECT_TRUE(has(out, "bf16 scale for fp32: error dtype mismatch\n")) << out;
}

// A string axis (norm) and an integer axis (head_dim) beside a flag: template parameters of the
// entry, in the kernel name (string values spelled as the solution's own names, one launch per
// value), in a shape, in a config class's `when` and in a buffer's presence; the guard refuses
// values the task does not list.
json norm_axes_doc() {
  json doc = base_doc("norm_axes", {"N"}, {"out", "x", "weight", "bias", "eps"});
  doc["flags"] = {"affine"};
  doc["axes"] = json::parse(R"([{"name": "norm", "values": ["layer", "rms"]}, {"name": "head_dim", "values": [64, 128]}])");
  doc["buffers"] = json::parse(R"([{"name": "x", "role": "in", "shape": ["N", "head_dim"]},
    {"name": "weight", "role": "in", "shape": ["head_dim"], "present_if": "affine"},
    {"name": "bias", "role": "in", "shape": ["head_dim"], "present_if": "norm == 'layer'"},
    {"name": "out", "role": "out", "shape": ["N", "head_dim"]}])");
  doc["scalars"] = json::parse(R"([{"name": "eps", "type": "f32", "value": 1e-6}])");
  doc["solution"].update({{"kernel", "norm_kernel<{T}, {norm}, {head_dim}, {BLOCK}>"}, {"grid", {"N"}}, {"block", {"BLOCK"}},
                          {"params", {{"BLOCK", {64, 128}}}}});
  return doc;
}

constexpr const char* kNormKernel = R"(enum NormKind { layer, rms };
template <typename T, NormKind kNorm, int kHeadDim, int kBlock>
__global__ void norm_kernel(T* out, const T* x, const T* weight, const T* bias, float eps) {
  for (int i = threadIdx.x; i < kHeadDim; i += kBlock) {
    float v = float(x[blockIdx.x * kHeadDim + i]) * (kNorm == rms ? eps : 1.f);
    if (weight) v *= float(weight[i]);
    if (bias) v += float(bias[i]);
    out[blockIdx.x * kHeadDim + i] = T(v);
  }
}
)";

json norm_axes_config() {
  return json::parse(R"({"schema": "ako.config/1", "source": "test",
    "classes": [{"name": "rms-128", "when": "norm == 'rms' && head_dim == 128", "params": {"BLOCK": 128}}]})");
}

TEST_F(PortV2, TypedAxesAreTemplateParametersDispatchedOverTheirValues) {
  const auto r = render(spec_of(norm_axes_doc(), std::string(kIncludes) + kNormKernel, norm_axes_config()));
  EXPECT_TRUE(has(r.kernel, "template <bool kAffine, int64_t kNorm, int64_t kHeadDim, typename DType>\nstruct AkoNormAxesKernel {"))
      << r.kernel;
  EXPECT_TRUE(has(r.kernel, "static_assert(kHeadDim == 64 || kHeadDim == 128, \"AkoNormAxesKernel: head_dim must be one of 64, 128"));
  EXPECT_TRUE(has(r.kernel, "if (axis_norm == ako_str_rms && axis_head_dim == 128) return launch<DType, kAffine, kNorm, kHeadDim, 128>("));
  EXPECT_TRUE(has(r.kernel, "  if constexpr (kNorm == ako_str_layer)\n    LaunchKernel("));
  EXPECT_TRUE(has(r.kernel, "::ako_port_norm_axes::norm_kernel<DType, rms, kHeadDim, BLOCK>, out, x, weight, bias, eps);"));
  EXPECT_TRUE(has(r.kernel, "RuntimeCheck(x.size(1) == (kHeadDim), \"x: extent 1 must be head_dim = \""));
  EXPECT_TRUE(has(r.kernel, "if constexpr (static_cast<bool>(kNorm == ako_port_norm_axes_host::ako_str_layer)) {"));
  EXPECT_TRUE(has(r.wrapper, "_AXIS_NORM = {\"layer\": 0, \"rms\": 1}\n_AXIS_HEAD_DIM = (64, 128,)\n")) << r.wrapper;
  EXPECT_TRUE(has(r.wrapper, "def can_use_ako_norm_axes(affine: bool, norm: str, head_dim: int, dtype: torch.dtype) -> bool:"));
  EXPECT_TRUE(has(r.wrapper, "    if norm not in _AXIS_NORM:\n        return False\n    if head_dim not in _AXIS_HEAD_DIM:\n"));
  EXPECT_TRUE(has(r.wrapper, "args = make_cpp_args(affine, _AXIS_NORM[norm], head_dim, dtype)"));
  EXPECT_TRUE(has(r.wrapper, "def ako_norm_axes(out: torch.Tensor, x: torch.Tensor, weight: Optional[torch.Tensor], "
                             "bias: Optional[torch.Tensor], eps: float = 1e-06, *, norm: str, head_dim: int) -> bool:"));
  EXPECT_TRUE(has(r.wrapper, "    if (bias is not None) != bool(norm == 'layer'):\n        raise ValueError("));
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  using namespace ako_port_norm_axes_host;
  const auto out = T(0, {4, 128}, kBf16), x = T(2048, {4, 128}, kBf16), w = T(4096, {128}, kBf16), b = T(4608, {128}, kBf16);
  attempt("layer-128", [&] { AkoNormAxesKernel<true, ako_str_layer, 128, __nv_bfloat16>::run(out, x, w, b, 1e-6f); });
  attempt("rms-128", [&] { AkoNormAxesKernel<false, ako_str_rms, 128, __nv_bfloat16>::run(out, x, x, x, 1e-6f); });
  attempt("head_dim 64", [&] { AkoNormAxesKernel<true, ako_str_layer, 64, __nv_bfloat16>::run(out, x, w, b, 1e-6f); });
)");
  EXPECT_TRUE(has(out, "layer-128: launch grid=4,1,1 block=64,1,1 smem=0 args=@0,@2048,@4096,@4608,1e-06\n")) << out;
  EXPECT_TRUE(has(out, "rms-128: launch grid=4,1,1 block=128,1,1 smem=0 args=@0,@2048,null,null,1e-06\n")) << out;
  EXPECT_TRUE(has(out, "head_dim 64: error out: extent 1 must be head_dim = 64, got 128\n")) << out;
}

// A config class that chooses by the case's dtype: the dispatch compares the DType template
// argument's code, declared after the axes' codes (which the wrapper passes and must not move).
TEST_F(PortV2, AConfigClassChoosingByDtypeDispatchesOnTheTemplateType) {
  const json config = json::parse(R"({"schema": "ako.config/1", "source": "test",
    "classes": [{"name": "fp16-128", "when": "dtype == 'fp16' && head_dim == 128", "params": {"BLOCK": 128}}]})");
  const auto r = render(spec_of(norm_axes_doc(), std::string(kIncludes) + kNormKernel, config));
  EXPECT_TRUE(has(r.kernel, "inline constexpr int64_t ako_str_layer = 0;\ninline constexpr int64_t ako_str_rms = 1;\n"
                            "inline constexpr int64_t ako_str_bf16 = 2;\ninline constexpr int64_t ako_str_fp16 = 3;\n"))
      << r.kernel;
  EXPECT_TRUE(has(r.kernel, "inline constexpr int64_t ako_dtype_code = std::is_same_v<DType, __nv_bfloat16> ? ako_str_bf16 : "
                            "std::is_same_v<DType, __half> ? ako_str_fp16 : -1;"));
  EXPECT_TRUE(has(r.kernel, "if (ako_dtype_code<DType> == ako_str_fp16 && axis_head_dim == 128) return launch<DType, kAffine, kNorm, "
                            "kHeadDim, 128>("));
  EXPECT_TRUE(has(r.wrapper, "_AXIS_NORM = {\"layer\": 0, \"rms\": 1}\n")) << r.wrapper;
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  using namespace ako_port_norm_axes_host;
  const auto o16 = T(0, {4, 128}, kF16), x16 = T(2048, {4, 128}, kF16);
  const auto o = T(0, {4, 128}, kBf16), x = T(2048, {4, 128}, kBf16);
  attempt("fp16", [&] { AkoNormAxesKernel<false, ako_str_rms, 128, __half>::run(o16, x16, x16, x16, 1e-6f); });
  attempt("bf16", [&] { AkoNormAxesKernel<false, ako_str_rms, 128, __nv_bfloat16>::run(o, x, x, x, 1e-6f); });
)");
  EXPECT_TRUE(has(out, "fp16: launch grid=4,1,1 block=128,1,1")) << out;
  EXPECT_TRUE(has(out, "bf16: launch grid=4,1,1 block=64,1,1")) << out;
}

// The ported device section compiles with NVRTC for sm_90a on its own, and the name ako gives an
// instantiation (the string axis's value spelled as the solution's name) finds it in the port's
// namespace.
TEST_F(PortV2, TheDeviceSectionInstantiatesWithNvrtcAsAkoNamesIt) {
  const auto r = render(spec_of(norm_axes_doc(), std::string(kIncludes) + kNormKernel, norm_axes_config()));
  testing::write_file(root / "device.cuh", r.device_section);
  jit::CompileRequest req;
  req.source = root / "device.cuh";
  req.name_expressions = {"ako_port_norm_axes::norm_kernel<__nv_bfloat16, ako_port_norm_axes::rms, 128, 128>",
                          "ako_port_norm_axes::norm_kernel<__half, ako_port_norm_axes::layer, 64, 64>"};
  jit::CompileOptions co;
  co.use_cache = false;
  EXPECT_EQ(jit::compile(req, co).lowered.size(), 2u);
}

// The generated wrapper, executed over stand-ins for torch and SGLang's JIT utilities: the guard
// says False for values the task does not list, a bias given for the wrong norm is refused.
constexpr const char* kAxesHarness = R"PY(
import importlib.util, sys, types
torch = types.ModuleType("torch")
torch.bfloat16, torch.float16, torch.float32, torch.int32, torch.int64 = "bf16", "fp16", "fp32", "i32", "i64"
torch.Tensor = object
torch.dtype = str
torch.compiler = types.SimpleNamespace(assume_constant_result=lambda f: f)
sys.modules["torch"] = torch
calls = []
class Module:
    def __getattr__(self, name):
        return lambda *a: calls.append((name, a))
utils = types.ModuleType("utils")
utils.cache_once = lambda f: f
utils.make_cpp_args = lambda *a: [str(x) for x in a]
utils.load_jit = lambda name, *args, **kw: (calls.append(("load_jit", args)), Module())[1]
for mod in ("sglang", "sglang.jit_kernel", "sglang.jit_kernel.utils"):
    sys.modules[mod] = utils
class T:
    def __init__(self, dtype): self.dtype, self.is_cuda = dtype, True
    def is_contiguous(self): return True
    def data_ptr(self): return 4096
spec = importlib.util.spec_from_file_location("w", sys.argv[1])
w = importlib.util.module_from_spec(spec); spec.loader.exec_module(w)
assert w.can_use_ako_norm_axes(True, "layer", 128, "bf16")
assert not w.can_use_ako_norm_axes(True, "group", 128, "bf16")
assert not w.can_use_ako_norm_axes(True, "rms", 96, "bf16")
out, x, weight, bias = T("bf16"), T("bf16"), T("bf16"), T("bf16")
assert w.ako_norm_axes(out, x, weight, bias, 1e-6, norm="layer", head_dim=128) is True
assert ("load_jit", ("True", "0", "128", "bf16")) in calls, calls
assert w.ako_norm_axes(out, x, None, None, 1e-6, norm="rms", head_dim=64) is True
assert ("load_jit", ("False", "1", "64", "bf16")) in calls, calls
assert calls[-1] == ("ako_norm_axes", (out, x, x, x, 1e-6)), calls[-1]
assert w.ako_norm_axes(out, x, None, None, 1e-6, norm="rms", head_dim=96) is False
try:
    w.ako_norm_axes(out, x, None, bias, 1e-6, norm="rms", head_dim=64)
    raise SystemExit("a bias for rms was accepted")
except ValueError as e:
    assert "pass bias exactly when norm == 'layer'" in str(e), e
print("wrapper ok")
)PY";

TEST_F(PortV2, TheWrappersGuardCoversTheAxesWhenExecuted) {
  if (testing::run_command("python3 -c 'import sys; sys.exit(sys.version_info < (3, 8))'").first != 0)
    GTEST_SKIP() << "no python3 (3.8 or newer) to execute the generated wrapper";
  const auto r = render(spec_of(norm_axes_doc(), std::string(kIncludes) + kNormKernel, norm_axes_config()));
  testing::write_file(root / "wrapper.py", r.wrapper);
  testing::write_file(root / "harness.py", kAxesHarness);
  const auto [status, out] = testing::run_command("python3 '" + (root / "harness.py").string() + "' '" + (root / "wrapper.py").string() + "'");
  EXPECT_EQ(status, 0) << out << "\n" << r.wrapper;
  EXPECT_TRUE(has(out, "wrapper ok")) << out;
}

// An axis named as a tensor (residual_gate_norm_scale_shift's axis gate and its optional tensor
// gate): the wrapper's keyword becomes gate_axis, which the presence check and the template
// arguments then use; Python refuses a repeated parameter name.
TEST_F(PortV2, AnAxisNamedAsATensorIsTheKeywordAxisSuffixedInTheWrapper) {
  if (testing::run_command("python3 -c 'import sys; sys.exit(sys.version_info < (3, 8))'").first != 0)
    GTEST_SKIP() << "no python3 (3.8 or newer) to execute the generated wrapper";
  json doc = base_doc("gated", {"N", "C"}, {"out", "x", "gate", "eps"});
  doc["axes"] = json::parse(R"([{"name": "gate", "values": ["none", "bc"]}, {"name": "mod_dtype", "values": ["same", "fp32"]}])");
  doc["buffers"] = json::parse(R"([{"name": "x", "role": "in", "shape": ["N", "C"]},
    {"name": "gate", "role": "in", "dtype": "$mod_dtype", "shape": ["C"], "present_if": "gate != 'none'"},
    {"name": "out", "role": "out", "shape": ["N", "C"]}])");
  doc["scalars"] = json::parse(R"([{"name": "eps", "type": "f32", "value": 1e-6}])");
  doc["solution"].update({{"grid", {"N"}}, {"block", {"64"}}});
  const auto r = render(spec_of(doc, "// not compiled\n"));
  EXPECT_TRUE(has(r.wrapper, "def ako_gated(out: torch.Tensor, x: torch.Tensor, gate: Optional[torch.Tensor], eps: float = 1e-06, *, "
                             "gate_axis: str, mod_dtype: str) -> bool:")) << r.wrapper;
  EXPECT_TRUE(has(r.wrapper, "    if (gate is not None) != bool(gate_axis != 'none'):\n"));
  testing::write_file(root / "wrapper.py", r.wrapper);
  std::string harness = kAxesHarness;
  harness = harness.substr(0, harness.find("assert w.can_use_ako_norm_axes")) + R"PY(
out, x, gate = T("bf16"), T("bf16"), T("fp32")
assert w.ako_gated(out, x, gate, 1e-6, gate_axis="bc", mod_dtype="fp32") is True
assert ("load_jit", ("1", "3", "bf16")) in calls, calls
assert calls[-1] == ("ako_gated", (out, x, gate, 1e-6)), calls[-1]
assert w.ako_gated(out, x, None, 1e-6, gate_axis="none", mod_dtype="same") is True
assert calls[-1] == ("ako_gated", (out, x, x, 1e-6)), calls[-1]
assert w.ako_gated(out, x, T("bf16"), 1e-6, gate_axis="bc", mod_dtype="fp32") is False  # gate not in fp32
try:
    w.ako_gated(out, x, None, 1e-6, gate_axis="bc", mod_dtype="same")
    raise SystemExit("no gate for gate_axis bc was accepted")
except ValueError as e:
    assert "pass gate exactly when gate_axis != 'none'" in str(e), e
print("wrapper ok")
)PY";
  testing::write_file(root / "harness.py", harness);
  const auto [status, out] = testing::run_command("python3 '" + (root / "harness.py").string() + "' '" + (root / "wrapper.py").string() + "'");
  EXPECT_EQ(status, 0) << out << "\n" << r.wrapper;
  EXPECT_TRUE(has(out, "wrapper ok")) << out;
}

// scale broadcasts over L for layout b1c: its extent is an expression that is 1 there.
TEST_F(PortV2, BroadcastExtentsAreCheckedAgainstTheirExpression) {
  json doc = base_doc("modulate", {"B", "L", "C"}, {"out", "x", "scale", "scale_rows", "l", "c"});
  doc["axes"] = json::parse(R"([{"name": "layout", "values": ["b1c", "blc"]}])");
  doc["buffers"] = json::parse(R"([{"name": "x", "role": "in", "shape": ["B", "L", "C"]},
    {"name": "scale", "role": "in", "shape": ["B", "layout == 'b1c' ? 1 : L", "C"]},
    {"name": "out", "role": "out", "shape": ["B", "L", "C"]}])");
  doc["scalars"] = json::parse(R"([{"name": "scale_rows", "type": "i32", "value": "layout == 'b1c' ? 1 : L"},
    {"name": "l", "type": "i32", "value": "L"}, {"name": "c", "type": "i32", "value": "C"}])");
  doc["solution"].update({{"kernel", "modulate<{T}>"}, {"grid", {"B * L"}}, {"block", {"64"}}});
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T>
__global__ void modulate(T* out, const T* x, const T* scale, int scale_rows, int l, int c) {
  const int b = blockIdx.x / l, row = blockIdx.x % l;
  const T* s = scale + (b * scale_rows + (scale_rows == 1 ? 0 : row)) * c;
  for (int i = threadIdx.x; i < c; i += blockDim.x) out[blockIdx.x * c + i] = T(float(x[blockIdx.x * c + i]) * float(s[i]));
}
)"));
  EXPECT_TRUE(has(r.kernel, "TensorMatcher({B, -1, C}).with_strides({s_scale_0, s_scale_1, 1})")) << r.kernel;
  EXPECT_TRUE(has(r.kernel, "RuntimeCheck(s_scale_0.unwrap() == scale.size(1) * C.unwrap(), \"scale: must be contiguous (stride 0)\");"));
  EXPECT_TRUE(has(r.kernel, "RuntimeCheck(scale.size(1) == 1 || s_scale_1.unwrap() == C.unwrap(), \"scale: must be contiguous (stride 1)\");"));
  EXPECT_TRUE(has(r.kernel, "RuntimeCheck(scale.size(1) == (kLayout == ako_port_modulate_host::ako_str_b1c ? 1 : dim_L), "
                            "\"scale: extent 1 must be layout == 'b1c' ? 1 : L = \""));
  EXPECT_TRUE(has(r.kernel, "static_cast<int>(axis_layout == ako_str_b1c ? 1 : dim_L)"));
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  using namespace ako_port_modulate_host;
  const auto out = T(0, {2, 8, 64}, kBf16), x = T(4096, {2, 8, 64}, kBf16);
  attempt("b1c", [&] { AkoModulateKernel<ako_str_b1c, __nv_bfloat16>::run(out, x, T(8192, {2, 1, 64}, kBf16)); });
  attempt("b1c any stride", [&] { AkoModulateKernel<ako_str_b1c, __nv_bfloat16>::run(out, x, S(8192, {2, 1, 64}, {64, 12345, 1}, kBf16)); });
  attempt("b1c given blc", [&] { AkoModulateKernel<ako_str_b1c, __nv_bfloat16>::run(out, x, T(8192, {2, 8, 64}, kBf16)); });
  attempt("blc", [&] { AkoModulateKernel<ako_str_blc, __nv_bfloat16>::run(out, x, T(8192, {2, 8, 64}, kBf16)); });
)");
  EXPECT_TRUE(has(out, "b1c: launch grid=16,1,1 block=64,1,1 smem=0 args=@0,@4096,@8192,1,8,64\n")) << out;
  EXPECT_TRUE(has(out, "b1c any stride: launch grid=16,1,1 block=64,1,1 smem=0 args=@0,@4096,@8192,1,8,64\n")) << out;
  EXPECT_TRUE(has(out, "b1c given blc: error scale: extent 1 must be layout == 'b1c' ? 1 : L = 1, got 8\n")) << out;
  EXPECT_TRUE(has(out, "blc: launch grid=16,1,1 block=64,1,1 smem=0 args=@0,@4096,@8192,8,8,64\n")) << out;
}

// F (frames) is an extent of scale and shift only where layout is bf1c ([B, F, 1, C]), as in
// tasks/scale_shift: learnt there from scale's extent 1, passed as 1 where no tensor shows it.
json frames_doc() {
  json doc = base_doc("frames", {"B", "L", "C", "F"}, {"out", "x", "scale", "l", "c", "f"});
  doc["axes"] = json::parse(R"([{"name": "layout", "values": ["bc", "bf1c"]}])");
  doc["buffers"] = json::parse(R"([{"name": "x", "role": "in", "shape": ["B", "L", "C"]},
    {"name": "scale", "role": "in", "shape": ["B", "layout == 'bf1c' ? F : 1", "1", "C"]},
    {"name": "out", "role": "out", "shape": ["B", "L", "C"]}])");
  doc["scalars"] = json::parse(R"([{"name": "l", "type": "i32", "value": "L"}, {"name": "c", "type": "i32", "value": "C"},
    {"name": "f", "type": "i32", "value": "F"}])");
  doc["solution"].update({{"kernel", "frames<{T}>"}, {"grid", {"B * L"}}, {"block", {"64"}}, {"constraints", {"L % F == 0"}}});
  return doc;
}

constexpr const char* kFramesKernel = R"(template <typename T>
__global__ void frames(T* out, const T* x, const T* scale, int l, int c, int f) {
  const int b = blockIdx.x / l, frame = (blockIdx.x % l) / (l / f);
  for (int i = threadIdx.x; i < c; i += blockDim.x) out[blockIdx.x * c + i] = T(float(x[blockIdx.x * c + i]) * float(scale[(b * f + frame) * c + i]));
}
)";

TEST_F(PortV2, ADimShownOnlyUnderSomeAxisValuesIsLearntThereAndIsOneElsewhere) {
  const auto r = render(spec_of(frames_doc(), std::string(kIncludes) + kFramesKernel));
  EXPECT_TRUE(has(r.kernel, "    if constexpr (kLayout == ako_port_frames_host::ako_str_bf1c) {\n"
                            "      RuntimeCheck(scale.dim() == 4, \"scale: must have 4 dimensions, got \", scale.dim());\n"
                            "      F.set_value(scale.size(1));  // layout == 'bf1c' ? F : 1\n"
                            "    } else {\n"
                            "      F.set_value(1);  // no tensor is shaped by F here: the op cannot see it\n    }\n"))
      << r.kernel;
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  using namespace ako_port_frames_host;
  const auto out = T(0, {2, 6, 64}, kBf16), x = T(2048, {2, 6, 64}, kBf16);
  attempt("bf1c F=3", [&] { AkoFramesKernel<ako_str_bf1c, __nv_bfloat16>::run(out, x, T(4096, {2, 3, 1, 64}, kBf16)); });
  attempt("bf1c F=4", [&] { AkoFramesKernel<ako_str_bf1c, __nv_bfloat16>::run(out, x, T(4096, {2, 4, 1, 64}, kBf16)); });
  attempt("bf1c 3-D scale", [&] { AkoFramesKernel<ako_str_bf1c, __nv_bfloat16>::run(out, x, T(4096, {2, 3, 64}, kBf16)); });
  attempt("bc", [&] { AkoFramesKernel<ako_str_bc, __nv_bfloat16>::run(out, x, T(4096, {2, 1, 1, 64}, kBf16)); });
  attempt("bc given frames", [&] { AkoFramesKernel<ako_str_bc, __nv_bfloat16>::run(out, x, T(4096, {2, 3, 1, 64}, kBf16)); });
)");
  EXPECT_TRUE(has(out, "bf1c F=3: launch grid=12,1,1 block=64,1,1 smem=0 args=@0,@2048,@4096,6,64,3\n")) << out;
  EXPECT_TRUE(has(out, "bf1c F=4: error AkoFramesKernel: constraint 'L % F == 0' does not hold for this shape\n")) << out;
  EXPECT_TRUE(has(out, "bf1c 3-D scale: error scale: must have 4 dimensions, got 3\n")) << out;
  EXPECT_TRUE(has(out, "bc: launch grid=12,1,1 block=64,1,1 smem=0 args=@0,@2048,@4096,6,64,1\n")) << out;
  EXPECT_TRUE(has(out, "bc given frames: error scale: extent 1 must be layout == 'bf1c' ? F : 1 = 1, got 3\n")) << out;
}

// The presence of a tensor whose extents do not name F (weight, present when affine) plays no
// part in learning F (norm_scale_shift).
TEST_F(PortV2, AFlagGatedTensorBesideADimLearntPerVariantRenders) {
  json doc = frames_doc();
  doc["flags"] = {"affine"};
  doc["buffers"].push_back(json::parse(R"({"name": "weight", "role": "in", "shape": ["C"], "present_if": "affine"})"));
  doc["solution"]["args"] = {"out", "x", "weight", "scale", "l", "c", "f"};
  const auto r = render(spec_of(doc, "// not compiled\n"));
  EXPECT_TRUE(has(r.kernel, "    if constexpr (kLayout == ako_port_frames_host::ako_str_bf1c) {\n"
                            "      RuntimeCheck(scale.dim() == 4, \"scale: must have 4 dimensions, got \", scale.dim());\n"))
      << r.kernel;
}

// Two tensors show F under different axes (residual_gate_norm_scale_shift: an optional gate
// [B, F, 1, C] where gate is bf1c, scale where layout is bf1c): the first in argument order wins,
// and each branch names only the axes that decide it.
TEST_F(PortV2, ADimShownByTwoTensorsIsLearntFromTheFirstPresentOne) {
  json doc = frames_doc();
  doc["axes"] = json::parse(R"([{"name": "layout", "values": ["bc", "bf1c"]}, {"name": "gate", "values": ["none", "bc", "bf1c"]}])");
  doc["buffers"].insert(doc["buffers"].begin() + 1, json::parse(R"({"name": "gate", "role": "in", "present_if": "gate != 'none'",
    "shape": ["B", "gate == 'bf1c' ? F : 1", "1", "C"]})"));
  doc["solution"]["args"] = {"out", "x", "gate", "scale", "l", "c", "f"};
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T>
__global__ void frames(T* out, const T* x, const T* gate, const T* scale, int l, int c, int f) {
  for (int i = threadIdx.x; i < c; i += blockDim.x) out[blockIdx.x * c + i] = T(float(x[blockIdx.x * c + i]) * float(scale[i]) * (gate ? float(gate[i]) : 1.f));
}
)"));
  EXPECT_TRUE(has(r.kernel, "    if constexpr (kGate == ako_port_frames_host::ako_str_bf1c) {\n"
                            "      RuntimeCheck(gate.dim() == 4, \"gate: must have 4 dimensions, got \", gate.dim());\n"
                            "      F.set_value(gate.size(1));  // gate == 'bf1c' ? F : 1\n"
                            "    } else if constexpr (kLayout == ako_port_frames_host::ako_str_bf1c) {\n"
                            "      RuntimeCheck(scale.dim() == 4, \"scale: must have 4 dimensions, got \", scale.dim());\n"
                            "      F.set_value(scale.size(1));  // layout == 'bf1c' ? F : 1\n"
                            "    } else {\n"
                            "      F.set_value(1);  // no tensor is shaped by F here: the op cannot see it\n    }\n"))
      << r.kernel;
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  using namespace ako_port_frames_host;
  const auto out = T(0, {2, 6, 64}, kBf16), x = T(2048, {2, 6, 64}, kBf16);
  const auto frames3 = T(4096, {2, 3, 1, 64}, kBf16), per_batch = T(8192, {2, 1, 1, 64}, kBf16);
  attempt("gate bf1c", [&] { AkoFramesKernel<ako_str_bc, ako_str_bf1c, __nv_bfloat16>::run(out, x, frames3, per_batch); });
  attempt("layout bf1c", [&] { AkoFramesKernel<ako_str_bf1c, ako_str_none, __nv_bfloat16>::run(out, x, x, frames3); });
  attempt("both, disagreeing", [&] { AkoFramesKernel<ako_str_bf1c, ako_str_bf1c, __nv_bfloat16>::run(out, x, frames3, T(8192, {2, 2, 1, 64}, kBf16)); });
  attempt("neither", [&] { AkoFramesKernel<ako_str_bc, ako_str_bc, __nv_bfloat16>::run(out, x, per_batch, per_batch); });
)");
  EXPECT_TRUE(has(out, "gate bf1c: launch grid=12,1,1 block=64,1,1 smem=0 args=@0,@2048,@4096,@8192,6,64,3\n")) << out;
  EXPECT_TRUE(has(out, "layout bf1c: launch grid=12,1,1 block=64,1,1 smem=0 args=@0,@2048,null,@4096,6,64,3\n")) << out;
  EXPECT_TRUE(has(out, "both, disagreeing: error scale: extent 1 must be layout == 'bf1c' ? F : 1 = 3, got 2\n")) << out;
  EXPECT_TRUE(has(out, "neither: launch grid=12,1,1 block=64,1,1 smem=0 args=@0,@2048,@8192,@8192,6,64,1\n")) << out;
}

// q and k: views into the caller's packed qkv, updated in place, passed as strided tensors.
TEST_F(PortV2, AViewIsAStridedTensorWithExactlyItsStrides) {
  json doc = base_doc("qk_norm", {"N", "H", "D"}, {"q", "k", "weight", "h", "d", "row", "eps"});
  doc["buffers"] = json::parse(R"([{"name": "qkv", "role": "inout", "shape": ["N", "3 * H * D"]},
    {"name": "q", "role": "inout", "shape": ["N", "H", "D"], "view": {"of": "qkv", "strides": ["3 * H * D", "D", "1"]}},
    {"name": "k", "role": "inout", "shape": ["N", "H", "D"], "view": {"of": "qkv", "offset": "H * D", "strides": ["3 * H * D", "D", "1"]}},
    {"name": "weight", "role": "in", "shape": ["D"]}])");
  doc["scalars"] = json::parse(R"([{"name": "h", "type": "i32", "value": "H"}, {"name": "d", "type": "i32", "value": "D"},
    {"name": "row", "type": "i32", "value": "3 * H * D"}, {"name": "eps", "type": "f32", "value": 1e-6}])");
  doc["solution"].update({{"kernel", "qk_norm<{T}>"}, {"grid", {"N"}}, {"block", {"32"}}});
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T>
__global__ void qk_norm(T* q, T* k, const T* weight, int h, int d, int row, float eps) {
  for (int i = threadIdx.x; i < h * d; i += blockDim.x) {
    q[blockIdx.x * row + i] = T(float(q[blockIdx.x * row + i]) * float(weight[i % d]) + eps);
    k[blockIdx.x * row + i] = T(float(k[blockIdx.x * row + i]) * float(weight[i % d]) + eps);
  }
}
)"));
  EXPECT_TRUE(has(r.kernel, "static void run(const tvm::ffi::TensorView q,\n                  const tvm::ffi::TensorView k,\n"
                            "                  const tvm::ffi::TensorView weight,\n                  float eps)")) << r.kernel;
  EXPECT_TRUE(has(r.kernel, "TensorMatcher({N, H, D}).with_strides({-1, -1, -1}).with_dtype<DType>().with_device(device).verify(q);"));
  EXPECT_TRUE(has(r.kernel, "RuntimeCheck(q.size(0) == 1 || q.stride(0) == (3 * dim_H * dim_D), \"q: stride 0 must be 3 * H * D = \""));
  EXPECT_TRUE(has(r.wrapper, "def ako_qk_norm(q: torch.Tensor, k: torch.Tensor, weight: torch.Tensor, eps: float = 1e-06) -> bool:"))
      << r.wrapper;
  EXPECT_TRUE(has(r.wrapper, "    if not all(_fits(t) for t in (weight, )):\n        return False\n"
                             "    if not all(_fits_view(t) for t in (q, k, )):\n        return False\n"));
  EXPECT_TRUE(has(r.wrapper, "Updates q, k in place."));
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  const auto w = T(8192, {64}, kBf16);
  attempt("views", [&] { AkoQkNormKernel<__nv_bfloat16>::run(S(0, {4, 2, 64}, {384, 64, 1}, kBf16), S(256, {4, 2, 64}, {384, 64, 1}, kBf16), w, 1e-6f); });
  attempt("contiguous q", [&] { AkoQkNormKernel<__nv_bfloat16>::run(T(0, {4, 2, 64}, kBf16), S(256, {4, 2, 64}, {384, 64, 1}, kBf16), w, 1e-6f); });
)");
  EXPECT_TRUE(has(out, "views: launch grid=4,1,1 block=32,1,1 smem=0 args=@0,@256,@8192,2,64,384,1e-06\n")) << out;
  EXPECT_TRUE(has(out, "contiguous q: error q: stride 0 must be 3 * H * D = 384 (a view into qkv), got 128\n")) << out;
}

// The kernel takes the storage and a view of it: the entry takes the storage and computes the view.
TEST_F(PortV2, AViewOfAStorageArgumentIsComputedFromTheStorage) {
  json doc = base_doc("k_packed", {"N", "H", "D"}, {"qkv", "k", "weight", "h", "d", "eps"});
  doc["buffers"] = json::parse(R"([{"name": "qkv", "role": "inout", "shape": ["N", "3", "H", "D"]},
    {"name": "k", "role": "inout", "shape": ["N", "H", "D"], "view": {"of": "qkv", "offset": "H * D", "strides": ["3 * H * D", "D", "1"]}},
    {"name": "weight", "role": "in", "shape": ["D"]}])");
  doc["scalars"] = json::parse(R"([{"name": "h", "type": "i32", "value": "H"}, {"name": "d", "type": "i32", "value": "D"},
    {"name": "eps", "type": "f32", "value": 1e-6}])");
  doc["solution"].update({{"kernel", "k_norm<{T}>"}, {"grid", {"N"}}, {"block", {"32"}}});
  const auto r = render(spec_of(doc, std::string(kIncludes) + R"(template <typename T>
__global__ void k_norm(T* qkv, T* k, const T* weight, int h, int d, float eps) {
  for (int i = threadIdx.x; i < h * d; i += blockDim.x)
    k[blockIdx.x * 3 * h * d + i] = T(float(k[blockIdx.x * 3 * h * d + i]) * float(weight[i % d]) + eps + 0.f * float(qkv[0]));
}
)"));
  EXPECT_TRUE(has(r.kernel, "static void run(const tvm::ffi::TensorView qkv,\n                  const tvm::ffi::TensorView weight,\n"))
      << r.kernel;
  EXPECT_TRUE(has(r.kernel, "TensorMatcher({N, 3, H, D}).with_strides({s_qkv_0, s_qkv_1, s_qkv_2, 1})"));
  EXPECT_TRUE(has(r.kernel, "static_cast<DType*>(qkv.data_ptr()) + (dim_H * dim_D)"));
  EXPECT_TRUE(has(r.wrapper, "def ako_k_packed(qkv: torch.Tensor, weight: torch.Tensor, eps: float = 1e-06) -> bool:")) << r.wrapper;
  REQUIRE_NVCC();
  const std::string out = compile_and_run(r.kernel, R"(
  attempt("packed", [] { AkoKPackedKernel<__nv_bfloat16>::run(T(0, {4, 3, 2, 64}, kBf16), T(8192, {64}, kBf16), 1e-6f); });
)");
  EXPECT_TRUE(has(out, "packed: launch grid=4,1,1 block=32,1,1 smem=0 args=@0,@256,@8192,2,64,1e-06\n")) << out;
}

// What the port cannot bind is an error naming the buffer or dim and the expression.
class PortV2Refusal : public PortV2 {
 protected:
  std::string error_of(const json& doc) {
    try {
      render(spec_of(doc, "// never compiled\n"));
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "rendered";
    return "";
  }
};

TEST_F(PortV2Refusal, ADimOnlyInsideAnExpressionCannotBeLearnt) {
  json doc = base_doc("packed", {"N", "H", "D"}, {"qkv"});
  doc["buffers"] = json::parse(R"([{"name": "qkv", "role": "inout", "shape": ["N", "3 * H * D"]}])");
  const std::string e = error_of(doc);
  EXPECT_TRUE(has(e, "dim 'H' is no extent of a tensor the ported entry point takes")) << e;
}

TEST_F(PortV2Refusal, ADimThatShapesATensorButIsNoExtentUnderSomeAxisValueCannotBeLearnt) {
  json doc = frames_doc();
  doc["buffers"][1]["shape"] = {"B", "layout == 'bf1c' ? F : 2 * F", "1", "C"};
  const std::string e = error_of(doc);
  EXPECT_TRUE(has(e, "dim 'F' is no extent of a tensor the ported entry point takes where kLayout == ako_str_bc")) << e;
  EXPECT_TRUE(has(e, "scale extent 1 'layout == 'bf1c' ? F : 2 * F' depends on it")) << e;
}

TEST_F(PortV2Refusal, APresenceOverADimIsRefused) {
  json doc = base_doc("gated", {"N"}, {"out", "bias"});
  doc["buffers"] = json::parse(R"([{"name": "out", "role": "out", "shape": ["N"]},
    {"name": "bias", "role": "in", "shape": ["N"], "present_if": "N > 4"}])");
  const std::string e = error_of(doc);
  EXPECT_TRUE(has(e, "buffer 'bias' has present_if 'N > 4', which depends on the dim 'N'")) << e;
}

TEST_F(PortV2Refusal, APresenceThePythonWrapperCannotSpellIsRefused) {
  json doc = base_doc("cond", {"N"}, {"out", "bias"});
  doc["flags"] = {"affine"};
  doc["axes"] = json::parse(R"([{"name": "norm", "values": ["layer", "rms"]}])");
  doc["buffers"] = json::parse(R"([{"name": "out", "role": "out", "shape": ["N"]},
    {"name": "bias", "role": "in", "shape": ["N"], "present_if": "norm == 'layer' ? affine : 0"}])");
  const std::string e = error_of(doc);
  EXPECT_TRUE(has(e, "buffer 'bias': present_if: 'norm == 'layer' ? affine : 0' cannot be checked by the ported Python wrapper: "
                     "it uses ?:")) << e;
}

TEST_F(PortV2Refusal, ADimInTheKernelNameIsRefused) {
  json doc = base_doc("by_dim", {"N"}, {"out"});
  doc["buffers"] = json::parse(R"([{"name": "out", "role": "out", "shape": ["N"]}])");
  doc["solution"]["kernel"] = "k<{T}, {N}>";
  const std::string e = error_of(doc);
  EXPECT_TRUE(has(e, "solution.kernel uses {N}, which ako port cannot bake in")) << e;
}

}  // namespace
}  // namespace ako::port
