#include "port/render_kernel.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "port/binding.hpp"
#include "port/cpp_expr.hpp"
#include "port/render_dispatch.hpp"
#include "port/render_entry.hpp"
#include "task/device_config.hpp"

namespace ako::port {

namespace {

using task::TaskSpec;

bool is_flag(const TaskSpec& s, const std::string& n) { return std::count(s.flags.begin(), s.flags.end(), n) > 0; }

const model::Axis* find_axis(const TaskSpec& s, const std::string& n) {
  for (const auto& a : s.axes)
    if (a.name == n) return &a;
  return nullptr;
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

// Each placeholder of solution.kernel, in order.
std::vector<std::string> kernel_placeholders(const TaskSpec& s) {
  std::vector<std::string> out;
  const std::string& k = s.solution.kernel;
  for (size_t i = k.find('{'); i != std::string::npos; i = k.find('{', i + 1)) out.push_back(k.substr(i + 1, k.find('}', i) - i - 1));
  return out;
}

// What a placeholder becomes in the launch helper; `chosen` holds the string axes' values of one
// branch of the launch (they are spelled as the solution's own names, as ako spells them).
std::string placeholder_text(const TaskSpec& s, const std::string& name, const std::map<std::string, std::string>& chosen) {
  if (name == "T") return "DType";
  if (name.rfind("T_", 0) == 0)
    if (const task::BufferSpec* b = find_buffer(s, name.substr(2))) return element_type(s, *b);
  if (is_flag(s, name)) return flag_param(name);
  if (const model::Axis* a = find_axis(s, name)) return a->kind == model::AxisKind::integer ? flag_param(name) : chosen.at(name);
  if (std::any_of(s.solution.params.begin(), s.solution.params.end(), [&](const auto& p) { return p.name == name; })) return name;
  throw Error("tasks/" + s.name + "/task.json: solution.kernel uses {" + name +
              "}, which ako port cannot bake in (a dim or {dtype} would need one engine build per shape); "
              "port supports {T}, {T_<buffer>}, flags, axes and params");
}

// The kernel's template instantiation inside the launch helper.
std::string kernel_instantiation(const TaskSpec& s, const PortNames& n, const std::map<std::string, std::string>& chosen) {
  const std::string& k = s.solution.kernel;
  std::string out;
  for (size_t i = 0; i < k.size();) {
    if (k[i] != '{') {
      out += k[i++];
      continue;
    }
    const size_t close = k.find('}', i);
    out += placeholder_text(s, k.substr(i + 1, close - i - 1), chosen);
    i = close + 1;
  }
  return "::" + n.device_ns + "::" + out;
}

// Every combination of the values of the string axes the kernel name spells, first varying slowest.
std::vector<std::map<std::string, std::string>> string_axis_branches(const TaskSpec& s) {
  std::vector<std::map<std::string, std::string>> out{{}};
  std::vector<std::string> seen;
  for (const auto& p : kernel_placeholders(s)) {
    const model::Axis* a = find_axis(s, p);
    if (!a || a->kind != model::AxisKind::string || std::count(seen.begin(), seen.end(), p)) continue;
    seen.push_back(p);
    std::vector<std::map<std::string, std::string>> next;
    for (const auto& m : out)
      for (const auto& v : a->strings) {
        auto w = m;
        w[p] = v;
        next.push_back(std::move(w));
      }
    out = std::move(next);
  }
  return out;
}

std::string dim3_of(const TaskSpec& s, const std::vector<std::string>& e) {
  std::string o = "dim3(";
  for (size_t i = 0; i < e.size(); ++i) o += (i ? ", " : "") + ("static_cast<unsigned>(" + host_expr(s, e[i]) + ")");
  return o + ")";
}

// The launch statement; with string axes in the kernel name, one per value, chosen at compile time.
std::string launch_statement(const TaskSpec& s, const PortNames& n, const std::string& call_args) {
  const std::string launch = fmt::format("LaunchKernel({}, {}, device, static_cast<std::size_t>({}))(\n", dim3_of(s, s.solution.grid),
                                         dim3_of(s, s.solution.block), host_expr(s, s.solution.shared_bytes));
  const auto branches = string_axis_branches(s);
  if (branches.size() == 1 && branches.front().empty())
    return "  " + launch + "      " + kernel_instantiation(s, n, {}) + call_args + ");\n";
  std::string out = "  using namespace ::" + n.device_ns + ";  // the kernel name spells string-axis values as the solution's names\n";
  for (size_t i = 0; i < branches.size(); ++i) {
    std::string cond;
    for (const auto& [axis, value] : branches[i]) cond += (cond.empty() ? "" : " && ") + flag_param(axis) + " == ako_str_" + value;
    out += std::string(i ? "  else if constexpr (" : "  if constexpr (") + cond + ")\n    " + launch + "        " +
           kernel_instantiation(s, n, branches[i]) + call_args + ");\n";
  }
  return out;
}

// What launch() and the dispatch functions take and pass on.
struct HelperSignature {
  std::string params;       // "int64_t dim_rows, ..., DType* out, const DType* x, ..., float eps"
  std::string args;         // "dim_rows, ..., out, x, ..., eps"
  std::string kernel_args;  // ", out, x, ..., static_cast<int>(dim_rows), ..., eps": the kernel's arguments
};

// Buffers and f32 scalars are passed down; integer scalars are recomputed from the dims where the
// kernel is called, as the spec defines them.
HelperSignature helper_signature(const TaskSpec& s) {
  HelperSignature h;
  std::string passed, passed_args;
  for (const auto& d : s.dims) h.params += "int64_t dim_" + d + ", ";
  for (const auto& d : s.dims) h.args += "dim_" + d + ", ";
  for (const auto& a : s.solution.args) {
    std::string decl;
    if (const auto* b = find_buffer(s, a)) {
      decl = (b->role == model::Role::in ? "const " : "") + element_type(s, *b) + "* " + a;
    } else if (const auto* v = find_scalar(s, a)) {
      if (v->type != task::ScalarType::f32) {
        const std::string ctype = v->type == task::ScalarType::i32 ? "int" : "long long";
        h.kernel_args += ", static_cast<" + ctype + ">(" + host_expr(s, v->value) + ")";
        continue;
      }
      decl = "float " + a;
    } else {
      throw Error("tasks/" + s.name + "/task.json: solution arg '" + a + "' is neither a buffer nor a scalar");
    }
    h.kernel_args += ", " + a;
    passed += (passed.empty() ? "" : ", ") + decl;
    passed_args += (passed_args.empty() ? "" : ", ") + a;
  }
  h.params += passed;
  h.args += passed_args;
  return h;
}

std::string render_launch(const TaskSpec& s, const PortNames& n, const HelperSignature& h, const VariantParams& v) {
  std::string params_tparams;
  for (const auto& p : s.solution.params) params_tparams += ", int64_t " + p.name;
  std::string out = fmt::format(
      "// One shape class's launch: the solution's grid, block and constraints from tasks/{0}/task.json.\n"
      "template <typename DType{1}{2}>\n"
      "void launch(DLDevice device, {3}) {{\n"
      "  using namespace host;\n{4}",
      s.name, v.tparams, params_tparams, h.params, v.consts);
  for (const auto& c : s.solution.constraints)
    out += fmt::format("  RuntimeCheck({}, \"{}: constraint '{}' does not hold for this shape\");\n", host_expr(s, c), n.host_struct,
                       escape(c));
  return out + launch_statement(s, n, h.kernel_args) + "}\n";
}

std::string file_header(const TaskSpec& s, const EngineProfile& profile, const std::string& origin,
                        const std::vector<task::DeviceConfig>& baked, const std::string& sol_includes) {
  const bool by_device =
      std::any_of(baked.begin(), baked.end(), [](const task::DeviceConfig& c) { return c.entry != task::kDefaultEntry; });
  std::string configs_text, jit_flags, includes;
  for (const auto& line : baked_config_lines(baked)) configs_text += "//   " + line + "\n";
  for (const auto& x : profile.jit_flags) jit_flags += (jit_flags.empty() ? "" : " ") + x;
  for (const auto& i : profile.includes) includes += "#include <" + i + ">\n";
  return fmt::format(
      "// Generated by `ako port` for task {0}: {1}\n"
      "// {2}\n"
      "// Tuned configs baked in{6}:\n{7}"
      "// Do not edit here: change the solution in the ako workspace and port again (ako refuses to\n"
      "// overwrite an engine file that changed since it wrote it). Compiled by the engine's JIT with\n"
      "// {3}.\n"
      "#pragma once\n\n{4}\n#include <cstddef>\n#include <cstdint>\n#include <type_traits>\n{8}{5}\n",
      s.name, s.description.substr(0, 160), origin, jit_flags, includes, sol_includes,
      by_device ? " (chosen at run time by the CUDA device name of the tensors' device)" : "", configs_text,
      by_device ? "#include <algorithm>\n#include <iterator>\n#include <map>\n#include <mutex>\n#include <string>\n\n"
                  "#include <cuda_runtime.h>\n"
                : "");
}

// The host namespace: expression helpers, string codes, dtype aliases, launch and dispatch.
std::string host_namespace(const TaskSpec& s, const PortNames& n, const std::vector<task::DeviceConfig>& baked) {
  const HelperSignature h = helper_signature(s);
  const VariantParams v = variant_params(s);
  const std::string launch = render_launch(s, n, h, v);
  const std::string dispatch = render_dispatch(s, n, baked, {v.tparams, v.targs, h.params, h.args, v.consts});
  std::string prelude = expr_helpers_cpp(launch + dispatch);
  for (const std::string& part : {string_codes_cpp(s), axis_type_aliases(s)})
    if (!part.empty()) prelude += "\n" + part;
  return "namespace " + n.host_ns + " {\n\n" + prelude + "\n" + launch + "\n" + dispatch + "\n}  // namespace " + n.host_ns + "\n\n";
}

}  // namespace

RenderedKernel render_kernel(const TaskSpec& s, const std::string& solution_text, const EngineProfile& profile,
                             const PortNames& n, const std::string& origin,
                             const std::vector<task::DeviceConfig>& baked) {
  check_bindable(s);
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

  std::string text = file_header(s, profile, origin, baked, sol_inc_text) + r.device_block + "\n";
  const bool ns = !profile.cpp_namespace.empty();
  if (ns) text += "namespace " + profile.cpp_namespace + " {\n\n";
  text += host_namespace(s, n, baked) + render_entry(s, n);
  if (ns) text += "\n}  // namespace " + profile.cpp_namespace + "\n";
  r.file_text = std::move(text);
  return r;
}

}  // namespace ako::port
