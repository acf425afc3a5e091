#include "port/binding.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "common/error.hpp"
#include "port/cpp_expr.hpp"
#include "task/expr.hpp"
#include "task/json_field.hpp"

namespace ako::port {

using task::BufferSpec;
using task::TaskSpec;

const BufferSpec* find_buffer(const TaskSpec& s, const std::string& n) {
  for (const auto& b : s.buffers)
    if (b.name == n) return &b;
  return nullptr;
}

const task::ScalarSpec* find_scalar(const TaskSpec& s, const std::string& n) {
  for (const auto& v : s.scalars)
    if (v.name == n) return &v;
  return nullptr;
}

const BufferSpec& storage_of(const TaskSpec& s, const BufferSpec& b) {
  if (!b.view) return b;
  const BufferSpec* storage = find_buffer(s, b.view->of);
  return storage ? *storage : b;
}

bool from_storage(const TaskSpec& s, const BufferSpec& b) {
  return b.view && std::count(s.solution.args.begin(), s.solution.args.end(), b.view->of) > 0;
}

bool is_dim(const TaskSpec& s, const std::string& n) { return std::count(s.dims.begin(), s.dims.end(), n) > 0; }

bool is_integer_literal(const std::string& e) {
  return !e.empty() && std::all_of(e.begin(), e.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string element_type(const TaskSpec& s, const BufferSpec& b, const std::string& qualifier) {
  const BufferSpec& storage = storage_of(s, b);
  if (storage.dtype == "$dtype") return "DType";
  if (storage.dtype.front() == '$')
    return qualifier + "elem_" + storage.name + "<DType, " + flag_param(storage.dtype.substr(1)) + ">";
  const auto d = parse_dtype(storage.dtype);
  return d ? std::string(dtype_cuda_type(*d)) : "DType";
}

std::string axis_type_aliases(const TaskSpec& s) {
  std::string out;
  for (const auto& b : s.buffers) {
    if (b.view || b.dtype == "$dtype" || b.dtype.front() != '$') continue;
    const std::string axis = b.dtype.substr(1), param = flag_param(axis);
    const auto it = std::find_if(s.axes.begin(), s.axes.end(), [&](const model::Axis& a) { return a.name == axis; });
    if (it == s.axes.end()) continue;
    std::string type = "DType";  // "same", and what no listed value names
    for (auto v = it->strings.rbegin(); v != it->strings.rend(); ++v)
      if (const auto d = parse_dtype(*v); d && *v != "same")
        type = fmt::format("std::conditional_t<{} == ako_str_{}, {}, {}>", param, *v, dtype_cuda_type(*d), type);
    out += fmt::format(
        "// The element type of {0}, chosen by axis {1} (same: the case's dtype).\n"
        "template <typename DType, int64_t {2}>\nusing elem_{0} = {3};\n",
        b.name, axis, param, type);
  }
  return out;
}

std::vector<std::string> string_axis_values(const TaskSpec& s) {
  std::vector<std::string> out;
  for (const auto& a : s.axes)
    for (const auto& v : a.strings)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

std::string string_codes_cpp(const TaskSpec& s) {
  const std::vector<std::string> values = string_axis_values(s);
  if (values.empty()) return "";
  std::string out = "// The string axes' values as this code compares them; the wrapper passes these codes.\n";
  for (size_t i = 0; i < values.size(); ++i) out += fmt::format("inline constexpr int64_t ako_str_{} = {};\n", values[i], i);
  return out;
}

int64_t string_code(const TaskSpec& s, const std::string& value) {
  const std::vector<std::string> values = string_axis_values(s);
  return std::find(values.begin(), values.end(), value) - values.begin();
}

VariantParams variant_params(const TaskSpec& s) {
  VariantParams v;
  for (const auto& f : s.flags) {
    v.tparams += ", bool " + flag_param(f);
    v.targs += ", " + flag_param(f);
    v.consts += "  [[maybe_unused]] constexpr int64_t flag_" + f + " = " + flag_param(f) + " ? 1 : 0;\n";
  }
  for (const auto& a : s.axes) {
    v.tparams += ", int64_t " + flag_param(a.name);
    v.targs += ", " + flag_param(a.name);
    v.consts += "  [[maybe_unused]] constexpr int64_t axis_" + a.name + " = " + flag_param(a.name) + ";\n";
  }
  return v;
}

std::string python_axis_table(const std::string& axis) {
  std::string up;
  for (char c : axis) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "_AXIS_" + up;
}

std::string python_template_args(const TaskSpec& s) {
  std::string out;
  for (const auto& f : s.flags) out += f + ", ";
  for (const auto& a : s.axes)
    out += a.kind == model::AxisKind::string ? python_axis_table(a.name) + "[" + a.name + "], " : a.name + ", ";
  return out;
}

std::string presence_cpp(const TaskSpec& s, const BufferSpec& b, const std::string& qualifier) {
  auto one = [&](const BufferSpec& x) -> std::string {
    if (x.present_if.empty()) return "";
    if (std::count(s.flags.begin(), s.flags.end(), x.present_if)) return flag_param(x.present_if);
    return "static_cast<bool>(" + host_expression(s, x.present_if, {qualifier, true}) + ")";
  };
  const std::string own = one(b);
  const std::string storage = b.view ? one(storage_of(s, b)) : "";
  if (own.empty() || storage.empty()) return own.empty() ? storage : own;
  return own + " && " + storage;
}

namespace {

// Tensors the entry point takes: the kernel's buffer args but for views taken from their storage.
std::vector<const BufferSpec*> entry_tensors(const TaskSpec& s) {
  std::vector<const BufferSpec*> out;
  for (const auto& a : s.solution.args)
    if (const BufferSpec* b = find_buffer(s, a); b && !from_storage(s, *b)) out.push_back(b);
  return out;
}

void check_dim_bound(const TaskSpec& s, const std::string& d) {
  std::vector<std::string> optional;
  for (const BufferSpec* b : entry_tensors(s)) {
    if (std::find(b->shape.begin(), b->shape.end(), d) == b->shape.end()) continue;
    if (presence_cpp(s, *b, "").empty()) return;
    optional.push_back(b->name);
  }
  if (!optional.empty())
    throw Error(fmt::format("tasks/{}/task.json: dim '{}' is an extent only of optional tensors ({}); when they are absent "
                            "the ported host code cannot learn it: make it an extent of an always-present kernel argument",
                            s.name, d, task::join_names(optional)));
  throw Error(fmt::format("tasks/{}/task.json: dim '{}' is no extent of a tensor the ported entry point takes (an extent "
                          "written as an expression such as '3 * {} * D' does not tell it), so the ported host code cannot "
                          "learn it: make it an extent of a kernel argument (a view passed as its own tensor counts)",
                          s.name, d, d));
}

}  // namespace

void check_bindable(const TaskSpec& s) {
  for (const auto& b : s.buffers) {
    if (b.present_if.empty()) continue;
    for (const auto& id : task::expr_identifiers(b.present_if))
      if (is_dim(s, id))
        throw Error(fmt::format("tasks/{}/task.json: buffer '{}' has present_if '{}', which depends on the dim '{}'; the "
                                "ported code decides presence at compile time, from flags and axes only",
                                s.name, b.name, b.present_if, id));
  }
  for (const auto& d : s.dims) check_dim_bound(s, d);
}

}  // namespace ako::port
