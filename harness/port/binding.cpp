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

const task::ScalarSpec* find_scalar(const TaskSpec& s, const std::string& n) {
  for (const auto& v : s.scalars)
    if (v.name == n) return &v;
  return nullptr;
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

bool classes_choose_by_dtype(const TaskSpec& s) {
  for (const auto& config : s.configs)
    for (const auto& c : config.classes)
      if (!c.when.empty() && task::expr_identifiers(c.when).count("dtype")) return true;
  return false;
}

std::vector<std::string> string_axis_values(const TaskSpec& s) {
  std::vector<std::string> out;
  auto add = [&](const std::string& v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const auto& a : s.axes)
    for (const auto& v : a.strings) add(v);
  // After the axes' values, so that the codes the wrapper passes for axes do not move.
  if (classes_choose_by_dtype(s))
    for (DType d : s.dtypes) add(std::string(dtype_name(d)));
  return out;
}

std::string string_codes_cpp(const TaskSpec& s) {
  const std::vector<std::string> values = string_axis_values(s);
  if (values.empty()) return "";
  std::string out = "// The string axes' values as this code compares them; the wrapper passes these codes.\n";
  for (size_t i = 0; i < values.size(); ++i) out += fmt::format("inline constexpr int64_t ako_str_{} = {};\n", values[i], i);
  if (classes_choose_by_dtype(s)) {
    std::string code = "-1";
    for (auto d = s.dtypes.rbegin(); d != s.dtypes.rend(); ++d)
      code = fmt::format("std::is_same_v<DType, {}> ? ako_str_{} : {}", dtype_cuda_type(*d), dtype_name(*d), code);
    out += fmt::format(
        "// The case's dtype as a config class's `when` compares it (dtype == 'fp16').\n"
        "template <typename DType>\ninline constexpr int64_t ako_dtype_code = {};\n",
        code);
  }
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

bool mentions(const std::string& expr, const std::string& id) { return task::expr_identifiers(expr).count(id) > 0; }

// A plain extent of a tensor the entry always takes: its TensorMatcher binds the dim.
bool plain_always(const TaskSpec& s, const std::string& d) {
  for (const BufferSpec* b : entry_tensors(s))
    if (presence_cpp(s, *b, "").empty() && std::count(b->shape.begin(), b->shape.end(), d)) return true;
  return false;
}

// A flag or axis a dim's binding depends on: its values as the spec's expressions see them and
// as the entry's template parameters spell them.
struct VariantVar {
  std::string name;
  std::vector<std::pair<int64_t, std::string>> values;  // (value in an ExprEnv, C++ condition)
};

std::vector<VariantVar> variant_vars(const TaskSpec& s, const std::vector<std::string>& exprs, const std::string& q) {
  auto named = [&](const std::string& n) {
    return std::any_of(exprs.begin(), exprs.end(), [&](const std::string& e) { return mentions(e, n); });
  };
  std::vector<VariantVar> out;
  for (const auto& f : s.flags)
    if (named(f)) out.push_back({f, {{1, flag_param(f)}, {0, "!" + flag_param(f)}}});
  for (const auto& a : s.axes) {
    if (!named(a.name)) continue;
    VariantVar v{a.name, {}};
    for (const auto& x : a.strings) v.values.push_back({task::string_value(x), flag_param(a.name) + " == " + q + "ako_str_" + x});
    for (int64_t x : a.integers) v.values.push_back({x, flag_param(a.name) + " == " + std::to_string(x)});
    out.push_back(std::move(v));
  }
  return out;
}

using Assignments = std::vector<std::vector<size_t>>;  // value indices of the vars, one row per assignment

// The C++ condition of one branch of an if-constexpr chain: it must hold for `group` and may hold
// for what `earlier` branches already took. A var whose every value is in `group` + `earlier`
// wherever the other vars are as in `group` is left out (F in residual_gate_norm_scale_shift is
// gate's extent wherever gate is bf1c, whatever layout is: the condition names gate only).
std::string branch_condition(const std::vector<VariantVar>& vars, const Assignments& group, const Assignments& earlier) {
  Assignments allowed = group;
  allowed.insert(allowed.end(), earlier.begin(), earlier.end());
  std::sort(allowed.begin(), allowed.end());
  Assignments all{{}};  // every assignment of the vars
  for (const auto& v : vars) {
    Assignments next;
    for (const auto& a : all)
      for (size_t i = 0; i < v.values.size(); ++i) {
        next.push_back(a);
        next.back().push_back(i);
      }
    all = std::move(next);
  }
  std::vector<bool> used(vars.size(), true);
  // The condition over the used vars holds for r when r agrees with a row of group on them: it
  // must hold for no assignment outside `allowed`.
  auto sound = [&] {
    for (const auto& r : all) {
      const bool holds = std::any_of(group.begin(), group.end(), [&](const std::vector<size_t>& g) {
        for (size_t k = 0; k < vars.size(); ++k)
          if (used[k] && r[k] != g[k]) return false;
        return true;
      });
      if (holds && !std::binary_search(allowed.begin(), allowed.end(), r)) return false;
    }
    return true;
  };
  for (size_t k = 0; k < vars.size(); ++k) {
    used[k] = false;
    if (!sound()) used[k] = true;
  }
  std::vector<std::string> terms;
  for (const auto& g : group) {
    std::string t;
    for (size_t k = 0; k < vars.size(); ++k)
      if (used[k]) t += (t.empty() ? "" : " && ") + vars[k].values[g[k]].second;
    if (t.empty()) return "true";
    if (std::find(terms.begin(), terms.end(), t) == terms.end()) terms.push_back(t);
  }
  if (terms.size() == 1) return terms.front();
  std::string out;
  for (const auto& t : terms) out += (out.empty() ? "(" : " || (") + t + ")";
  return out;
}

std::string no_extent_error(const TaskSpec& s, const std::string& d, const std::string& where) {
  return fmt::format("tasks/{}/task.json: dim '{}' is no extent of a tensor the ported entry point takes{} (an extent "
                     "written as an expression such as '3 * {} * D' does not tell it), so the ported host code cannot "
                     "learn it: make it an extent of a kernel argument (a view passed as its own tensor counts)",
                     s.name, d, where, d);
}

}  // namespace

std::vector<ConditionalDim> conditional_dims(const TaskSpec& s, const std::string& q) {
  constexpr int64_t kProbe1 = 1000003, kProbe2 = 999983;
  std::vector<ConditionalDim> out;
  const std::vector<const BufferSpec*> tensors = entry_tensors(s);
  for (const auto& d : s.dims) {
    if (plain_always(s, d)) continue;
    std::vector<std::string> exprs;
    for (const BufferSpec* b : tensors)
      for (const auto& e : b->shape)
        if (mentions(e, d)) {
          exprs.push_back(e);
          for (const auto& p : presence_exprs(s, *b)) exprs.push_back(p);
        }
    if (exprs.empty()) throw Error(no_extent_error(s, d, ""));
    const std::vector<VariantVar> vars = variant_vars(s, exprs, q);

    // One outcome per assignment of the vars: the source (buffer, extent), or none (-1).
    std::vector<std::pair<const BufferSpec*, size_t>> keys;  // distinct sources, in order of first use
    std::vector<Assignments> groups;                         // per key, the assignments it serves
    Assignments unseen;
    std::vector<size_t> at(vars.size(), 0);
    for (bool more = true; more;) {
      task::ExprEnv env;
      for (size_t k = 0; k < s.dims.size(); ++k) env[s.dims[k]] = 10007 + 1009 * static_cast<int64_t>(k);
      std::string cond;
      for (size_t k = 0; k < vars.size(); ++k) {
        env[vars[k].name] = vars[k].values[at[k]].first;
        cond += (cond.empty() ? "" : " && ") + vars[k].values[at[k]].second;
      }
      auto value = [&](const std::string& e, int64_t probe) {
        env[d] = probe;
        return task::eval_int(e, env);
      };
      const BufferSpec* src = nullptr;
      size_t src_index = 0;
      std::string depends;
      for (const BufferSpec* b : tensors) {
        if (std::none_of(b->shape.begin(), b->shape.end(), [&](const std::string& e) { return mentions(e, d); })) continue;
        if (!task::present(s, *b, env)) continue;
        for (size_t i = 0; i < b->shape.size(); ++i) {
          if (!mentions(b->shape[i], d)) continue;
          const int64_t v1 = value(b->shape[i], kProbe1), v2 = value(b->shape[i], kProbe2);
          if (v1 == kProbe1 && v2 == kProbe2 && !src) src = b, src_index = i;
          if (v1 != v2 && depends.empty()) depends = b->name + " extent " + std::to_string(i) + " '" + b->shape[i] + "'";
        }
      }
      // Passed as 1 exactly where ako's class choice takes it as 1 (task/entry_view.hpp): one rule.
      if (!src) {
        const std::vector<std::string> hidden = task::unseen_dims(s, env);
        if (std::count(hidden.begin(), hidden.end(), d) == 0)
          throw Error(no_extent_error(s, d, cond.empty() ? "" : " where " + cond) + "; " + depends + " depends on it");
      }
      if (src) {
        const auto key = std::make_pair(src, src_index);
        const auto it = std::find(keys.begin(), keys.end(), key);
        if (it == keys.end()) {
          keys.push_back(key);
          groups.push_back({at});
        } else {
          groups[static_cast<size_t>(it - keys.begin())].push_back(at);
        }
      } else {
        unseen.push_back(at);
      }
      more = false;
      for (size_t k = vars.size(); k-- > 0;) {
        if (++at[k] < vars[k].values.size()) {
          more = true;
          break;
        }
        at[k] = 0;
      }
    }
    if (keys.empty()) throw Error(no_extent_error(s, d, ""));

    ConditionalDim cd{d, {}};
    Assignments earlier;
    for (size_t k = 0; k < keys.size(); ++k) {
      const bool last = k + 1 == keys.size() && unseen.empty();
      cd.sources.push_back({last ? "" : branch_condition(vars, groups[k], earlier), keys[k].first->name, keys[k].second,
                            keys[k].first->shape.size(), keys[k].first->shape[keys[k].second]});
      earlier.insert(earlier.end(), groups[k].begin(), groups[k].end());
    }
    if (!unseen.empty()) cd.sources.push_back({"", "", 0, 0, ""});
    out.push_back(std::move(cd));
  }
  return out;
}


void check_bindable(const TaskSpec& s) {
  for (const auto& b : s.buffers) {
    if (b.present_if.empty()) continue;
    for (const auto& id : task::expr_identifiers(b.present_if))
      if (is_dim(s, id))
        throw Error(fmt::format("tasks/{}/task.json: buffer '{}' has present_if '{}', which depends on the dim '{}'; the "
                                "ported code decides presence at compile time, from flags and axes only",
                                s.name, b.name, b.present_if, id));
  }
  conditional_dims(s, "");
}

}  // namespace ako::port
