#include "port/render_wrapper.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "port/binding.hpp"
#include "port/cpp_expr.hpp"
#include "task/json_field.hpp"

namespace ako::port {

namespace {

using task::BufferSpec;
using task::TaskSpec;

std::string torch_dtype(DType d) {
  switch (d) {
    case DType::bf16: return "torch.bfloat16";
    case DType::fp16: return "torch.float16";
    case DType::fp32: return "torch.float32";
    case DType::i32: return "torch.int32";
    case DType::i64: return "torch.int64";
  }
  return "torch.float32";
}

// The tensors the Python entry takes, in kernel argument order (views computed from their
// storage are not among them).
std::vector<const BufferSpec*> python_tensors(const TaskSpec& s) {
  std::vector<const BufferSpec*> out;
  for (const auto& a : s.solution.args)
    if (const BufferSpec* b = find_buffer(s, a); b && !from_storage(s, *b)) out.push_back(b);
  return out;
}

bool optional_tensor(const TaskSpec& s, const BufferSpec& b) { return !presence_cpp(s, b, "").empty(); }

// A flag tied to an optional tensor follows from whether it is given; others are keywords.
// Inside the entry point a tied flag gets its own local (has_<flag>): flag and buffer may share a
// name (rmsnorm's `weight`), and rebinding it would throw the tensor away.
std::string tied_tensor(const TaskSpec& s, const std::string& flag) {
  if (!std::count(s.flags.begin(), s.flags.end(), flag)) return "";
  for (const BufferSpec* b : python_tensors(s))
    if (b->present_if == flag) return b->name;
  return "";
}

// Whether the entry point has a tensor or f32 scalar parameter of that name.
bool entry_parameter(const TaskSpec& s, const std::string& name) {
  for (const BufferSpec* b : python_tensors(s))
    if (b->name == name) return true;
  const task::ScalarSpec* v = find_scalar(s, name);
  return v && v->type == task::ScalarType::f32 && std::count(s.solution.args.begin(), s.solution.args.end(), name);
}

// A flag's or axis's name inside the entry point: a tied flag is has_<flag>; a keyword that
// would repeat a tensor's name (residual_gate_norm_scale_shift's axis `gate` beside its tensor
// `gate`) takes a suffix, <axis>_axis or <flag>_flag: Python refuses a repeated parameter.
std::string local_of(const TaskSpec& s, const std::string& name) {
  const bool flag = std::count(s.flags.begin(), s.flags.end(), name) > 0;
  if (flag && !tied_tensor(s, name).empty()) return "has_" + name;
  if (!entry_parameter(s, name)) return name;
  return name + (flag ? "_flag" : "_axis");
}

// Where the case's dtype comes from: `dtype` (an expression) and a tensor that stands in for an
// absent optional one (the kernel never reads it).
struct DtypeSource {
  std::string dtype;
  std::string placeholder;
};

DtypeSource dtype_source(const TaskSpec& s) {
  const BufferSpec *in = nullptr, *any = nullptr, *always = nullptr;
  for (const BufferSpec* b : python_tensors(s)) {
    if (optional_tensor(s, *b)) continue;
    if (!always) always = b;
    if (storage_of(s, *b).dtype != "$dtype") continue;
    if (!any) any = b;
    if (!in && b->role == model::Role::in) in = b;
  }
  const BufferSpec* source = in ? in : any;
  if (!always) throw Error("tasks/" + s.name + "/task.json: ako port needs a kernel argument that is always present");
  if (source) return {source->name + ".dtype", source->name};
  std::vector<std::string> dtypes;
  for (DType d : s.dtypes) dtypes.emplace_back(dtype_name(d));
  if (s.dtypes.size() != 1)
    throw Error("tasks/" + s.name + "/task.json: the ported wrapper cannot tell the case's dtype: no always-present tensor "
                "argument has dtype $dtype, and the task runs in " + task::join_names(dtypes));
  return {torch_dtype(s.dtypes.front()), always->name};
}

// The axes' tables: string axis -> {value: code}, integer axis -> (values).
std::string axis_tables(const TaskSpec& s) {
  std::string out;
  for (const auto& a : s.axes) {
    std::string items;
    for (const auto& v : a.strings) items += fmt::format("\"{}\": {}, ", v, string_code(s, v));
    for (int64_t v : a.integers) items += std::to_string(v) + ", ";
    items.resize(items.size() - 2);
    out += a.kind == model::AxisKind::string ? fmt::format("{} = {{{}}}\n", python_axis_table(a.name), items)
                                             : fmt::format("{} = ({},)\n", python_axis_table(a.name), items);
  }
  return out;
}

// The template parameters of the module loader and the guard: "weight: bool, layout: str, ".
std::string variant_params_py(const TaskSpec& s) {
  std::string out;
  for (const auto& f : s.flags) out += f + ": bool, ";
  for (const auto& a : s.axes) out += a.name + (a.kind == model::AxisKind::string ? ": str, " : ": int, ");
  return out;
}

std::string axis_guards(const TaskSpec& s) {
  std::string out;
  for (const auto& a : s.axes)
    out += fmt::format("    if {} not in {}:\n        return False\n", a.name, python_axis_table(a.name));
  return out;
}

// The entry's parameters: tensors and f32 scalars in kernel order, then untied flags and axes
// as keywords.
std::string entry_params(const TaskSpec& s) {
  std::string out, keywords;
  for (const auto& a : s.solution.args) {
    if (const BufferSpec* b = find_buffer(s, a)) {
      if (!from_storage(s, *b)) out += a + (optional_tensor(s, *b) ? ": Optional[torch.Tensor], " : ": torch.Tensor, ");
    } else if (const auto* v = find_scalar(s, a); v && v->type == task::ScalarType::f32) {
      out += fmt::format("{}: float = {}, ", a, v->value);
    }
  }
  for (const auto& f : s.flags)
    if (tied_tensor(s, f).empty()) keywords += local_of(s, f) + ": bool, ";
  for (const auto& a : s.axes) keywords += local_of(s, a.name) + (a.kind == model::AxisKind::string ? ": str, " : ": int, ");
  if (!keywords.empty()) out += "*, " + keywords;
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out;
}

// What the kernel module is called with: tensors (a placeholder for an absent optional one) and f32 scalars.
std::string call_args(const TaskSpec& s, const DtypeSource& src) {
  std::string out;
  for (const auto& a : s.solution.args) {
    if (const BufferSpec* b = find_buffer(s, a)) {
      if (from_storage(s, *b)) continue;
      out += optional_tensor(s, *b) ? fmt::format("{0} if {0} is not None else {1}, ", a, src.placeholder) : a + ", ";
    } else if (const auto* v = find_scalar(s, a); v && v->type == task::ScalarType::f32) {
      out += a + ", ";
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out;
}

// The lines before the layout checks: tied flags from their tensors, then a tensor given exactly
// when the spec's present_if holds.
std::string presence_lines(const TaskSpec& s, const std::string& entry) {
  std::string out;
  for (const auto& f : s.flags)
    if (const std::string t = tied_tensor(s, f); !t.empty()) out += fmt::format("    {} = {} is not None\n", local_of(s, f), t);
  for (const BufferSpec* b : python_tensors(s)) {
    std::vector<const BufferSpec*> sources{b};
    if (b->view) sources.push_back(&storage_of(s, *b));
    std::vector<std::string> conds;
    for (const BufferSpec* x : sources)
      if (!x->present_if.empty() && tied_tensor(s, x->present_if) != b->name)
        conds.push_back(python_expression(s, x->present_if, [&](const std::string& n) { return local_of(s, n); },
                                          "buffer '" + x->name + "': present_if"));
    if (conds.empty()) continue;
    const std::string cond = conds.size() == 1 ? conds[0] : "(" + conds[0] + ") and (" + conds[1] + ")";
    out += fmt::format("    if ({0} is not None) != bool({1}):\n        raise ValueError(\"{2}: pass {0} exactly when {1}\")\n",
                       b->name, cond, entry);
  }
  return out;
}

// Tensors whose dtype is fixed or chosen by an axis: a mismatch means the caller's path.
std::string dtype_lines(const TaskSpec& s, const DtypeSource& src) {
  std::string out;
  for (const BufferSpec* b : python_tensors(s)) {
    const std::string& d = storage_of(s, *b).dtype;
    if (d == "$dtype") continue;
    std::string want;
    if (d.front() == '$')
      // integer values too: an axis may choose an index buffer's dtype (rope's pos_dtype)
      want = fmt::format("{{\"bf16\": torch.bfloat16, \"fp16\": torch.float16, \"fp32\": torch.float32, "
                         "\"i32\": torch.int32, \"i64\": torch.int64}}.get({}, {})",
                         local_of(s, d.substr(1)),
                         src.dtype);
    else if (const auto t = parse_dtype(d))
      want = torch_dtype(*t);
    else
      continue;
    out += fmt::format("    if {}{}.dtype != {}:\n        return False\n", optional_tensor(s, *b) ? b->name + " is not None and " : "",
                       b->name, want);
  }
  return out;
}

// The layout checks: contiguous tensors, and views passed as tensors (strides checked in C++).
std::string fits_lines(const TaskSpec& s) {
  std::string plain, views;
  for (const BufferSpec* b : python_tensors(s)) (b->view ? views : plain) += b->name + ", ";
  std::string out;
  if (!plain.empty()) out += "    if not all(_fits(t) for t in (" + plain + ")):\n        return False\n";
  if (!views.empty()) out += "    if not all(_fits_view(t) for t in (" + views + ")):\n        return False\n";
  return out;
}

// Said in the entry's docstring beyond the common text: tensors written in place, views.
std::string docstring_extra(const TaskSpec& s) {
  std::vector<std::string> inout, views;
  for (const BufferSpec* b : python_tensors(s)) {
    if (b->role == model::Role::inout) inout.push_back(b->name);
    if (b->view) views.push_back(b->name);
  }
  std::string out;
  if (!inout.empty()) out += "\n    Updates " + task::join_names(inout) + " in place.";
  if (!views.empty())
    out += "\n    " + task::join_names(views) +
           ": views (of a larger tensor) whose strides must be exactly the task's; the kernel's checks raise otherwise.";
  return out;
}

// The wrapper module; its fields are filled by render_wrapper.
constexpr const char* kWrapperTemplate = R"(# Generated by `ako port` for task {task}: the ako-tuned kernel in {cuda_file}
# ({host_struct}). Do not edit here: port again from the ako workspace (ako refuses to overwrite
# an engine file that changed since it wrote it).
from __future__ import annotations

import logging
from typing import Optional

import torch

from {utils} import cache_once, load_jit, make_cpp_args

logger = logging.getLogger(__name__)

_SUPPORTED_DTYPES = ({dtypes})
{axes}

@cache_once
def _jit_{module}_module({variant_params}dtype: torch.dtype):
    args = make_cpp_args({template_args}dtype)
    return load_jit(
        "{module}",
        *args,
        cuda_files=["{cuda_file}"],
        cuda_wrappers=[("{module}", f"{host_struct}<{{args}}>::run")],
    )


@torch.compiler.assume_constant_result
@cache_once
def {can_use}({variant_params}dtype: torch.dtype) -> bool:
    """True when the kernel builds for these template arguments; False means: use the existing path."""
    if dtype not in _SUPPORTED_DTYPES:
        return False
{axis_guards}    try:
        _jit_{module}_module({variant_args}dtype)
        return True
    except Exception as e:  # a failed build is a reason to fall back, not to fail
        logger.warning("ako {op} kernel unavailable (%s); falling back", e)
        return False


def _fits(t: Optional[torch.Tensor]) -> bool:
    # The kernel's vector loads want contiguous rows on 16-byte boundaries.
    return t is None or (t.is_cuda and t.is_contiguous() and t.data_ptr() % 16 == 0){fits_view}


def {entry}({call_params}) -> bool:
    """Runs the ako-tuned {op} kernel and returns True, or returns False (nothing written) when
    the caller must use its existing path: unsupported dtype, layout or alignment, or no build.
    Shapes the tuned configuration's constraints reject raise from the kernel's checks.{doc_extra}"""
{presence}{fits}{dtype_checks}    if not {can_use}({entry_variant}{dtype}):
        return False
    _jit_{module}_module({entry_variant}{dtype}).{module}({call_args})
    return True
)";

}  // namespace

std::string render_wrapper(const TaskSpec& s, const EngineProfile& profile, const PortNames& n) {
  std::string dtypes;
  for (const auto& d : s.dtypes) dtypes += torch_dtype(d) + ", ";
  std::string entry_variant;  // the guard's and loader's arguments as the entry has them
  for (const auto& f : s.flags) entry_variant += local_of(s, f) + ", ";
  for (const auto& a : s.axes) entry_variant += local_of(s, a.name) + ", ";
  std::string variant_args;  // the same in the guard, whose parameters are the flags' own names
  for (const auto& f : s.flags) variant_args += f + ", ";
  for (const auto& a : s.axes) variant_args += a.name + ", ";
  const DtypeSource src = dtype_source(s);
  const auto tensors = python_tensors(s);
  const bool views = std::any_of(tensors.begin(), tensors.end(), [](const BufferSpec* b) { return b->view.has_value(); });
  const std::string fits_view = views ? "\n\ndef _fits_view(t: Optional[torch.Tensor]) -> bool:\n"
                                        "    # A view keeps its strides (checked by the kernel); its start must be 16-byte aligned.\n"
                                        "    return t is None or (t.is_cuda and t.data_ptr() % 16 == 0)\n"
                                      : "";
  return fmt::format(
      fmt::runtime(kWrapperTemplate), fmt::arg("task", s.name), fmt::arg("cuda_file", n.cuda_file), fmt::arg("host_struct", n.host_struct),
      fmt::arg("utils", profile.python_utils_module), fmt::arg("dtypes", dtypes), fmt::arg("axes", axis_tables(s)),
      fmt::arg("module", n.module_name), fmt::arg("variant_params", variant_params_py(s)),
      fmt::arg("template_args", python_template_args(s)), fmt::arg("variant_args", variant_args),
      fmt::arg("can_use", n.can_use), fmt::arg("axis_guards", axis_guards(s)), fmt::arg("op", n.op), fmt::arg("entry", n.py_entry),
      fmt::arg("fits_view", fits_view), fmt::arg("call_params", entry_params(s)), fmt::arg("doc_extra", docstring_extra(s)),
      fmt::arg("presence", presence_lines(s, n.py_entry)), fmt::arg("fits", fits_lines(s)), fmt::arg("dtype_checks", dtype_lines(s, src)),
      fmt::arg("entry_variant", entry_variant), fmt::arg("dtype", src.dtype), fmt::arg("call_args", call_args(s, src)));
}

}  // namespace ako::port
