#include "port/render_kernel.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "port/cpp_expr.hpp"
#include "port/render_dispatch.hpp"
#include "task/device_config.hpp"

namespace ako::port {

namespace {

using task::TaskSpec;

bool is_dim(const TaskSpec& s, const std::string& n) { return std::count(s.dims.begin(), s.dims.end(), n) > 0; }
bool is_flag(const TaskSpec& s, const std::string& n) { return std::count(s.flags.begin(), s.flags.end(), n) > 0; }

const task::BufferSpec* find_buffer(const TaskSpec& s, const std::string& n) {
  for (const auto& b : s.buffers)
    if (b.name == n) return &b;
  return nullptr;
}
const task::ScalarSpec* find_scalar(const TaskSpec& s, const std::string& n) {
  for (const auto& v : s.scalars)
    if (v.name == n) return &v;
  return nullptr;
}

// The C++ element type of a buffer inside the generated templates.
std::string element_type(const task::BufferSpec& b) {
  if (b.dtype == "$dtype") return "DType";
  const auto d = parse_dtype(b.dtype);
  return d ? std::string(dtype_cuda_type(*d)) : "DType";
}

std::string host_expr(const TaskSpec& s, const std::string& e) { return host_expression(s, e); }

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o;
}

// The solution's includes are hoisted above every namespace; the rest is its body.
void split_solution(const std::string& text, std::vector<std::string>& includes, std::string& body) {
  std::istringstream in(text);
  std::string line;
  static const std::regex include(R"(^\s*#\s*include\s*[<"][^>"]+[>"].*$)");
  static const std::regex once(R"(^\s*#\s*pragma\s+once\s*$)");
  while (std::getline(in, line)) {
    if (std::regex_match(line, include)) includes.push_back(line);
    else if (!std::regex_match(line, once)) body += line + "\n";
  }
  while (!body.empty() && body.back() == '\n' && body.size() > 1 && body[body.size() - 2] == '\n') body.pop_back();
}

// The kernel's template instantiation inside the launch helper.
std::string kernel_instantiation(const TaskSpec& s, const PortNames& n) {
  const std::string& k = s.solution.kernel;
  std::string out;
  for (size_t i = 0; i < k.size();) {
    if (k[i] != '{') { out += k[i++]; continue; }
    const size_t close = k.find('}', i);
    const std::string name = k.substr(i + 1, close - i - 1);
    if (name == "T") out += "DType";
    else if (is_flag(s, name)) out += flag_param(name);
    else if (std::any_of(s.solution.params.begin(), s.solution.params.end(), [&](const auto& p) { return p.name == name; }))
      out += name;
    else
      throw Error("tasks/" + s.name + "/task.json: solution.kernel uses {" + name +
                  "}, which ako port cannot bake in (a dim or {dtype} would need one engine build per shape); "
                  "port supports {T}, flags and params");
    i = close + 1;
  }
  return "::" + n.device_ns + "::" + out;
}

struct Arg {
  std::string decl;  // launch-helper parameter
  std::string pass;  // what run() passes
};

}  // namespace

RenderedKernel render_kernel(const TaskSpec& s, const std::string& solution_text, const EngineProfile& profile,
                             const PortNames& n, const std::string& origin,
                             const std::vector<task::DeviceConfig>& baked) {
  std::vector<std::string> sol_includes;
  std::string body;
  split_solution(solution_text, sol_includes, body);

  RenderedKernel r;
  r.device_block = fmt::format(
      "// ---- ako: device code, {} verbatim but for its includes ----\nnamespace {} {{\n\n{}\n}}  // namespace {}\n"
      "// ---- ako: end of device code ----\n",
      s.solution.file.string(), n.device_ns, body, n.device_ns);
  std::string sol_inc_text;
  for (const auto& i : sol_includes) sol_inc_text += i + "\n";
  r.device_section = "#pragma once\n" + sol_inc_text + "\n" + r.device_block;

  // --- host glue ---------------------------------------------------------------------------
  std::string flags_tparams, flags_targs, flag_consts;  // ", bool kWeight" / ", kWeight"
  for (const auto& f : s.flags) {
    flags_tparams += ", bool " + flag_param(f);
    flags_targs += ", " + flag_param(f);
    flag_consts += "  [[maybe_unused]] constexpr int64_t flag_" + f + " = " + flag_param(f) + " ? 1 : 0;\n";
  }
  std::string params_tparams;
  for (const auto& p : s.solution.params) params_tparams += ", int64_t " + p.name;

  // Arguments: every kernel arg in order; f32 scalars come from run(), the rest from tensors and dims.
  std::vector<Arg> args;
  std::vector<std::string> run_params;
  std::string matchers, align_checks;
  std::set<std::string> bound_dims;
  for (const auto& a : s.solution.args) {
    if (const auto* b = find_buffer(s, a)) {
      const std::string type = element_type(*b);
      const bool is_const = b->role == model::Role::in;
      args.push_back({(is_const ? "const " : "") + type + "* " + a, ""});
      run_params.push_back("const tvm::ffi::TensorView " + a);
      std::string shape, strides, contig;
      for (size_t i = 0; i < b->shape.size(); ++i) {
        const std::string& ext = b->shape[i];
        if (!is_dim(s, ext))
          throw Error("tasks/" + s.name + "/task.json: buffer '" + a + "' has extent '" + ext +
                      "'; ako port binds tensor extents to dims, so each extent must be a dim name");
        shape += (i ? ", " : "") + ext;
        bound_dims.insert(ext);
        if (i + 1 == b->shape.size()) {
          strides += std::string(i ? ", " : "") + "1";
        } else {
          strides += (i ? ", " : "") + fmt::format("s_{}_{}", a, i);
          std::string prod;
          for (size_t k = i + 1; k < b->shape.size(); ++k) prod += (prod.empty() ? "" : " * ") + b->shape[k] + ".unwrap()";
          contig += fmt::format("    RuntimeCheck(s_{0}_{1}.unwrap() == {2}, \"{0}: must be contiguous (stride {1})\");\n", a, i, prod);
        }
      }
      std::string decl_strides;
      for (size_t i = 0; i + 1 < b->shape.size(); ++i) decl_strides += fmt::format("    auto s_{0}_{1} = SymbolicSize{{\"{0}_stride{1}\"}};\n", a, i);
      std::string m = decl_strides + fmt::format(
          "    TensorMatcher({{{}}}).with_strides({{{}}}).with_dtype<{}>().with_device(device).verify({});\n", shape, strides,
          element_type(*b), a);
      m += contig;
      m += fmt::format("    RuntimeCheck(reinterpret_cast<std::uintptr_t>({0}.data_ptr()) % 16 == 0, \"{0}: must be 16-byte aligned\");\n", a);
      if (!b->present_if.empty()) {
        matchers += "    if constexpr (" + flag_param(b->present_if) + ") {\n" + m + "    }\n";
        args.back().pass = flag_param(b->present_if) + " ? static_cast<" + (is_const ? "const " : "") + type + "*>(" + a +
                           ".data_ptr()) : nullptr";
      } else {
        matchers += m;
        args.back().pass = "static_cast<" + std::string(is_const ? "const " : "") + type + "*>(" + a + ".data_ptr())";
      }
    } else if (const auto* v = find_scalar(s, a)) {
      if (v->type == task::ScalarType::f32) {
        args.push_back({"float " + a, a});
        run_params.push_back("float " + a);
      } else {
        const std::string ctype = v->type == task::ScalarType::i32 ? "int" : "long long";
        args.push_back({ctype + " " + a, "static_cast<" + ctype + ">(" + host_expr(s, v->value) + ")"});
      }
    } else {
      throw Error("tasks/" + s.name + "/task.json: solution arg '" + a + "' is neither a buffer nor a scalar");
    }
  }
  for (const auto& d : s.dims)
    if (!bound_dims.count(d))
      throw Error("tasks/" + s.name + "/task.json: dim '" + d + "' is no extent of any kernel argument, so the ported host code cannot learn it");

  // dispatch() and launch() take the dims, the buffers and the f32 scalars; integer scalars are
  // recomputed from the dims where the kernel is called, as the spec defines them.
  std::string helper_params, helper_args, kernel_call_args, dispatch_args;
  for (const auto& d : s.dims) helper_params += "int64_t dim_" + d + ", ";
  for (const auto& d : s.dims) helper_args += "dim_" + d + ", ";
  std::vector<std::string> passed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = s.solution.args[i];
    const auto* v = find_scalar(s, a);
    if (v && v->type != task::ScalarType::f32) {
      kernel_call_args += ", " + args[i].pass;
      continue;
    }
    kernel_call_args += ", " + a;
    passed.push_back(args[i].decl);
    dispatch_args += (dispatch_args.empty() ? "" : ", ") + a;
  }
  for (size_t i = 0; i < passed.size(); ++i) helper_params += passed[i] + (i + 1 < passed.size() ? ", " : "");

  auto dim3_of = [&](const std::vector<std::string>& e) {
    std::string o = "dim3(";
    for (size_t i = 0; i < e.size(); ++i) o += (i ? ", " : "") + ("static_cast<unsigned>(" + host_expr(s, e[i]) + ")");
    return o + ")";
  };

  std::string launch = fmt::format(
      "// One shape class's launch: the solution's grid, block and constraints from tasks/{0}/task.json.\n"
      "template <typename DType{1}{2}>\n"
      "void launch(DLDevice device, {3}) {{\n"
      "  using namespace host;\n{4}",
      s.name, flags_tparams, params_tparams, helper_params, flag_consts);
  for (const auto& c : s.solution.constraints)
    launch += fmt::format("  RuntimeCheck({}, \"{}: constraint '{}' does not hold for this shape\");\n", host_expr(s, c),
                          n.host_struct, escape(c));
  launch += fmt::format("  LaunchKernel({}, {}, device, static_cast<std::size_t>({}))(\n      {}{});\n}}\n",
                        dim3_of(s.solution.grid), dim3_of(s.solution.block), host_expr(s, s.solution.shared_bytes),
                        kernel_instantiation(s, n), kernel_call_args);

  // The dispatch over the baked configs' classes (port/render_dispatch.hpp).
  const std::string dispatch =
      render_dispatch(s, n, baked, {flags_tparams, flags_targs, helper_params, helper_args + dispatch_args, flag_consts});
  const bool by_device = std::any_of(baked.begin(), baked.end(),
                                     [](const task::DeviceConfig& c) { return c.entry != task::kDefaultEntry; });
  std::string configs_text;
  for (const auto& line : baked_config_lines(baked)) configs_text += "//   " + line + "\n";

  // The entry point in the engine's convention.
  std::string run_sig;
  for (size_t i = 0; i < run_params.size(); ++i) run_sig += (i ? ",\n                  " : "") + run_params[i];
  std::string dtype_check;
  for (const auto& d : s.dtypes)
    dtype_check += (dtype_check.empty() ? "" : " || ") + fmt::format("std::is_same_v<DType, {}>", dtype_cuda_type(d));
  std::string dims_from;
  for (const auto& d : s.dims) dims_from += fmt::format("    auto {0} = SymbolicSize{{\"{0}\"}};\n", d);
  std::string dims_unwrap;
  for (const auto& d : s.dims) dims_unwrap += (dims_unwrap.empty() ? "" : ", ") + d + ".unwrap()";
  std::string run_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = s.solution.args[i];
    if (find_buffer(s, a)) run_args += ", " + args[i].pass;
    else if (find_scalar(s, a)->type == task::ScalarType::f32) run_args += ", " + a;
  }
  const std::string entry = fmt::format(
      "// Entry point for load_jit: cuda_wrappers=[(\"{0}\", f\"{1}<{{args}}>::run\")] with\n"
      "// args = make_cpp_args({2}dtype).\n"
      "template <{3}typename DType>\n"
      "struct {1} {{\n"
      "  static_assert({4}, \"{1}: dtype not among the task's dtypes\");\n\n"
      "  static void run({5}) {{\n"
      "    using namespace host;\n"
      "    auto device = SymbolicDevice{{}};\n"
      "    device.set_options<kDLCUDA>();\n{6}{7}"
      // Checked here, not left to the matchers: in sgl_kernel/tensor.h (sglang 0.5.23)
      // with_device(device) re-sets the symbol's options to its empty template pack, which
      // admits every device, so a CPU tensor would reach the launch and fault on its pointer
      // (seen on the H100; scripts/sglang-gpu-check.sh stage 5).
      "    RuntimeCheck(device.unwrap().device_type == kDLCUDA, \"tensors must be on a CUDA device\");\n"
      "    {8}::dispatch<DType{9}>(device.unwrap(), {10}{11});\n"
      "  }}\n}};\n",
      n.module_name, n.host_struct, [&] { std::string f; for (const auto& x : s.flags) f += x + ", "; return f; }(),
      [&] { std::string f; for (const auto& x : s.flags) f += "bool " + flag_param(x) + ", "; return f; }(), dtype_check, run_sig, dims_from, matchers, n.host_ns, flags_targs, dims_unwrap, run_args);


  std::string includes;
  for (const auto& i : profile.includes) includes += "#include <" + i + ">\n";
  std::string text = fmt::format(
      "// Generated by `ako port` for task {0}: {1}\n"
      "// {2}\n"
      "// Tuned configs baked in{7}:\n{8}"
      "// Do not edit here: change the solution in the ako workspace and port again (ako refuses to\n"
      "// overwrite an engine file that changed since it wrote it). Compiled by the engine's JIT with\n"
      "// {3}.\n"
      "#pragma once\n\n{4}\n#include <cstddef>\n#include <cstdint>\n#include <type_traits>\n{9}{5}\n{6}\n",
      s.name, s.description.substr(0, 160), origin, [&] { std::string f; for (const auto& x : profile.jit_flags) f += (f.empty() ? "" : " ") + x; return f; }(),
      includes, sol_inc_text, r.device_block,
      by_device ? " (chosen at run time by the CUDA device name of the tensors' device)" : "", configs_text,
      by_device ? "#include <algorithm>\n#include <iterator>\n#include <map>\n#include <mutex>\n#include <string>\n\n"
                  "#include <cuda_runtime.h>\n"
                : "");
  const bool ns = !profile.cpp_namespace.empty();
  if (ns) text += "namespace " + profile.cpp_namespace + " {\n\n";
  text += "namespace " + n.host_ns + " {\n\n" + expr_helpers_cpp() + "\n" + launch + "\n" + dispatch + "\n}  // namespace " +
          n.host_ns + "\n\n" + entry;
  if (ns) text += "\n}  // namespace " + profile.cpp_namespace + "\n";
  r.file_text = std::move(text);
  return r;
}

}  // namespace ako::port
