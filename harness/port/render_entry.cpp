#include "port/render_entry.hpp"

#include <fmt/format.h>

#include "port/binding.hpp"
#include "port/cpp_expr.hpp"
#include "task/json_field.hpp"

namespace ako::port {

namespace {

using task::BufferSpec;
using task::TaskSpec;

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o;
}

// What the entry point's code needs to spell names: the spec and the host namespace's qualifier.
struct Ctx {
  const TaskSpec& s;
  std::string q;  // "<host_ns>::"
  std::string expr(const std::string& e) const { return host_expression(s, e, {q, true}); }
};

bool plain_extent(const TaskSpec& s, const std::string& e) { return is_dim(s, e) || is_integer_literal(e); }

// A view passed as a tensor of its own: its strides are the view's, not contiguous ones.
bool view_tensor(const TaskSpec& s, const BufferSpec& b) { return b.view && !from_storage(s, b); }

// Row-major contiguity of a tensor that is not a view, stride by stride; a broadcast extent of 1
// may have any stride (torch gives size-1 dimensions arbitrary ones).
std::string contiguity_checks(const TaskSpec& s, const BufferSpec& b) {
  std::string out;
  for (size_t i = 0; i + 1 < b.shape.size(); ++i) {
    if (b.shape[i] == "1") continue;
    std::string prod;
    for (size_t k = i + 1; k < b.shape.size(); ++k) {
      const std::string& e = b.shape[k];
      if (e == "1") continue;
      const std::string term = is_dim(s, e) ? e + ".unwrap()" : is_integer_literal(e) ? e : fmt::format("{}.size({})", b.name, k);
      prod += (prod.empty() ? "" : " * ") + term;
    }
    const std::string broadcast = plain_extent(s, b.shape[i]) ? "" : fmt::format("{}.size({}) == 1 || ", b.name, i);
    out += fmt::format("    RuntimeCheck({3}s_{0}_{1}.unwrap() == {2}, \"{0}: must be contiguous (stride {1})\");\n", b.name, i,
                       prod.empty() ? "1" : prod, broadcast);
  }
  return out;
}

// The TensorMatcher of one tensor: dims bound or compared, other extents left to the deferred
// checks (-1: any), dtype, device, layout and alignment.
std::string matcher_block(const Ctx& c, const BufferSpec& b) {
  std::string shape, strides, decls;
  const bool view = view_tensor(c.s, b);
  for (size_t i = 0; i < b.shape.size(); ++i) {
    shape += (i ? ", " : "") + (plain_extent(c.s, b.shape[i]) ? b.shape[i] : std::string("-1"));
    if (view) strides += std::string(i ? ", " : "") + "-1";
    else if (i + 1 == b.shape.size()) strides += std::string(i ? ", " : "") + "1";
    else {
      strides += (i ? ", " : "") + fmt::format("s_{}_{}", b.name, i);
      decls += fmt::format("    auto s_{0}_{1} = SymbolicSize{{\"{0}_stride{1}\"}};\n", b.name, i);
    }
  }
  std::string m = decls + fmt::format("    TensorMatcher({{{}}}).with_strides({{{}}}).with_dtype<{}>().with_device(device).verify({});\n",
                                      shape, strides, element_type(c.s, b, c.q), b.name);
  if (!view) m += contiguity_checks(c.s, b);
  m += fmt::format("    RuntimeCheck(reinterpret_cast<std::uintptr_t>({0}.data_ptr()) % 16 == 0, \"{0}: must be 16-byte aligned\");\n",
                   b.name);
  return m;
}

// Checks that need every dim: extents written as expressions, and a view tensor's strides.
std::string deferred_block(const Ctx& c, const BufferSpec& b) {
  std::string out;
  for (size_t i = 0; i < b.shape.size(); ++i) {
    if (plain_extent(c.s, b.shape[i])) continue;
    const std::string e = c.expr(b.shape[i]);
    out += fmt::format("    RuntimeCheck({0}.size({1}) == ({2}), \"{0}: extent {1} must be {3} = \", ({2}), \", got \", {0}.size({1}));\n",
                       b.name, i, e, escape(b.shape[i]));
  }
  if (!view_tensor(c.s, b)) return out;
  for (size_t i = 0; i < b.view->strides.size(); ++i) {
    const std::string e = c.expr(b.view->strides[i]);
    out += fmt::format(
        "    RuntimeCheck({0}.size({1}) == 1 || {0}.stride({1}) == ({2}), \"{0}: stride {1} must be {3} = \", ({2}), \" (a view "
        "into {4}), got \", {0}.stride({1}));\n",
        b.name, i, e, escape(b.view->strides[i]), b.view->of);
  }
  return out;
}

std::string when_present(const std::string& cond, const std::string& block) {
  if (cond.empty() || block.empty()) return block;
  return "    if constexpr (" + cond + ") {\n" + block + "    }\n";
}

// The pointer run() passes for a buffer argument: the tensor's, or a view's inside its storage.
std::string pointer_pass(const Ctx& c, const BufferSpec& b) {
  const std::string type = (b.role == model::Role::in ? "const " : "") + element_type(c.s, b, c.q) + "*";
  std::string p;
  if (from_storage(c.s, b)) {
    p = fmt::format("static_cast<{}>({}.data_ptr())", type, b.view->of);
    if (b.view->offset != "0") p += " + (" + c.expr(b.view->offset) + ")";
  } else {
    p = fmt::format("static_cast<{}>({}.data_ptr())", type, b.name);
  }
  const std::string cond = presence_cpp(c.s, b, c.q);
  return cond.empty() ? p : cond + " ? " + p + " : nullptr";
}

// The dims no always-present tensor has as a plain extent, set before the matchers (which then
// check them) from the extent that is the dim in this variant, else 1 (binding.hpp).
std::string conditional_bindings(const Ctx& c) {
  std::string out;
  for (const ConditionalDim& d : conditional_dims(c.s, c.q)) {
    out += fmt::format("    // {}: no always-present tensor has it as an extent; learnt for these template arguments.\n", d.dim);
    std::string indent = "    ";
    for (size_t i = 0; i < d.sources.size(); ++i) {
      const DimSource& src = d.sources[i];
      const bool branch = d.sources.size() > 1;
      if (branch) {
        out += i == 0 ? "    if constexpr (" + src.condition + ") {\n"
                      : src.condition.empty() ? std::string("    } else {\n") : "    } else if constexpr (" + src.condition + ") {\n";
        indent = "      ";
      }
      if (src.buffer.empty()) {
        out += fmt::format("{}{}.set_value(1);  // no tensor is shaped by {} here: the op cannot see it\n", indent, d.dim, d.dim);
      } else {
        out += fmt::format("{0}RuntimeCheck({1}.dim() == {2}, \"{1}: must have {2} dimensions, got \", {1}.dim());\n", indent,
                           src.buffer, src.rank);
        out += fmt::format("{}{}.set_value({}.size({}));  // {}\n", indent, d.dim, src.buffer, src.index, escape(src.extent));
      }
    }
    if (d.sources.size() > 1) out += "    }\n";
  }
  return out;
}

struct EntryBody {
  std::string run_sig;   // run()'s parameters
  std::string checks;    // the dims, the matchers, the deferred checks
  std::string run_args;  // ", <pointer or f32 scalar>" per kernel argument dispatch() takes
};

EntryBody entry_body(const Ctx& c) {
  EntryBody e;
  std::string matchers, deferred;
  bool views_from_storage = false;
  for (const auto& a : c.s.solution.args) {
    if (const BufferSpec* b = find_buffer(c.s, a)) {
      e.run_args += ", " + pointer_pass(c, *b);
      views_from_storage = views_from_storage || from_storage(c.s, *b);
      if (from_storage(c.s, *b)) continue;
      e.run_sig += (e.run_sig.empty() ? "" : ",\n                  ") + std::string("const tvm::ffi::TensorView ") + a;
      const std::string cond = presence_cpp(c.s, *b, c.q);
      matchers += when_present(cond, matcher_block(c, *b));
      deferred += when_present(cond, deferred_block(c, *b));
    } else if (const auto* v = find_scalar(c.s, a); v && v->type == task::ScalarType::f32) {
      e.run_sig += (e.run_sig.empty() ? "" : ",\n                  ") + std::string("float ") + a;
      e.run_args += ", " + a;
    }
  }
  for (const auto& d : c.s.dims) e.checks += fmt::format("    auto {0} = SymbolicSize{{\"{0}\"}};\n", d);
  e.checks += conditional_bindings(c);
  e.checks += matchers;
  if (!deferred.empty() || views_from_storage) {
    for (const auto& d : c.s.dims) e.checks += fmt::format("    [[maybe_unused]] const int64_t dim_{0} = {0}.unwrap();\n", d);
    e.checks += deferred;
  }
  return e;
}

// static_asserts that the template arguments are a dtype and axis values of the task.
std::string template_asserts(const Ctx& c, const PortNames& n) {
  std::string dtypes;
  for (const auto& d : c.s.dtypes)
    dtypes += (dtypes.empty() ? "" : " || ") + fmt::format("std::is_same_v<DType, {}>", dtype_cuda_type(d));
  std::string out = fmt::format("  static_assert({}, \"{}: dtype not among the task's dtypes\");\n", dtypes, n.host_struct);
  for (const auto& a : c.s.axes) {
    std::string cond;
    std::vector<std::string> values;
    for (const auto& v : a.strings) values.push_back(v);
    for (int64_t v : a.integers) values.push_back(std::to_string(v));
    for (const auto& v : values)
      cond += (cond.empty() ? "" : " || ") + flag_param(a.name) + " == " + (a.strings.empty() ? v : c.q + "ako_str_" + v);
    out += fmt::format("  static_assert({}, \"{}: {} must be one of {} (the task's values)\");\n", cond, n.host_struct, a.name,
                       task::join_names(values));
  }
  return out;
}

}  // namespace

std::string render_entry(const TaskSpec& s, const PortNames& n) {
  const Ctx c{s, n.host_ns + "::"};
  const EntryBody body = entry_body(c);
  std::string tparams;  // "bool kWeight, int64_t kLayout, "
  for (const auto& f : s.flags) tparams += "bool " + flag_param(f) + ", ";
  for (const auto& a : s.axes) tparams += "int64_t " + flag_param(a.name) + ", ";
  std::string dims_unwrap;
  for (const auto& d : s.dims) dims_unwrap += (dims_unwrap.empty() ? "" : ", ") + d + ".unwrap()";
  return fmt::format(
      "// Entry point for load_jit: cuda_wrappers=[(\"{0}\", f\"{1}<{{args}}>::run\")] with\n"
      "// args = make_cpp_args({2}dtype).\n"
      "template <{3}typename DType>\n"
      "struct {1} {{\n{4}\n"
      "  static void run({5}) {{\n"
      "    using namespace host;\n"
      "    auto device = SymbolicDevice{{}};\n"
      "    device.set_options<kDLCUDA>();\n{6}"
      // Checked here, not left to the matchers: in sgl_kernel/tensor.h (sglang 0.5.23)
      // with_device(device) re-sets the symbol's options to its empty template pack, which
      // admits every device, so a CPU tensor would reach the launch and fault on its pointer
      // (seen on the H100; scripts/sglang-gpu-check.sh stage 5).
      "    RuntimeCheck(device.unwrap().device_type == kDLCUDA, \"tensors must be on a CUDA device\");\n"
      "    {7}::dispatch<DType{8}>(device.unwrap(), {9}{10});\n"
      "  }}\n}};\n",
      n.module_name, n.host_struct, python_template_args(s), tparams, template_asserts(c, n), body.run_sig, body.checks,
      n.host_ns, variant_params(s).targs, dims_unwrap, body.run_args);
}

}  // namespace ako::port
