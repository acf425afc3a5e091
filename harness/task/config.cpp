// parse_config: the solution's tuned config (schema ako.config/1, format in tasks/README.md),
// checked against the spec it belongs to so that a stale or hand-edited config is caught at
// load time, not in the middle of a run.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/config.hpp"
#include "task/expr.hpp"
#include "task/json_field.hpp"
#include "task/spec.hpp"
#include "task/spec_checks.hpp"

namespace ako::task {

std::vector<ConfigClass> parse_config(const nlohmann::json& doc, const std::filesystem::path& file,
                                      const TaskSpec& spec, std::string* source) {
  const std::string file_name = file.string();
  Field top(&doc, "", &file_name);
  top.only_keys({"schema", "source", "classes"});
  std::string schema = top["schema"].string();
  if (schema != kConfigSchema) top["schema"].fail(fmt::format("expected \"{}\", got \"{}\"", kConfigSchema, schema));
  if (top["source"].present()) {
    std::string text = top["source"].string();
    if (source) *source = text;
  }

  // A class may also choose by the case's dtype (`dtype == 'fp16'`): one kernel's best launch
  // differs between fp16 and bf16 where their conversions cost differently.
  std::vector<std::string> when_names = expression_names(spec);
  when_names.push_back("dtype");
  for (DType d : spec.dtypes)
    if (const std::string v = fmt::format("'{}'", dtype_name(d)); !contains(when_names, v)) when_names.push_back(v);
  std::vector<std::string> param_names;
  for (const auto& p : spec.solution.params) param_names.push_back(p.name);

  std::vector<ConfigClass> out;
  Field classes = top["classes"];
  classes.require_array();
  for (const Field& c : classes.elements()) {
    c.only_keys({"name", "when", "params", "tuned_on", "partial"});
    ConfigClass cls;
    cls.name = c["name"].non_empty_string();
    for (const auto& other : out)
      if (other.name == cls.name) c["name"].fail(fmt::format("expected a unique class name, got \"{}\" again", cls.name));
    if (c["when"].present()) {
      cls.when = c["when"].non_empty_string();
      check_expression(c["when"], cls.when, when_names, "a boolean expression over the dims, flags, axes and dtype");
    }
    if (c["params"].present()) {
      for (const auto& [name, value] : c["params"].members()) {
        auto it = std::find_if(spec.solution.params.begin(), spec.solution.params.end(),
                               [&](const TunableParam& p) { return p.name == name; });
        if (it == spec.solution.params.end())
          value.fail(fmt::format("unknown parameter; expected one of the solution's params ({})",
                                 param_names.empty() ? std::string("none declared") : join_names(param_names)));
        int64_t v = value.integer();
        if (std::find(it->values.begin(), it->values.end(), v) == it->values.end()) {
          std::vector<std::string> allowed;
          for (int64_t a : it->values) allowed.push_back(std::to_string(a));
          value.fail(fmt::format("expected one of {} (the allowed values in {}), got {}", join_names(allowed),
                                 spec.file.string(), v));
        }
        cls.params[name] = v;
      }
    }
    if (c["tuned_on"].present()) {
      // [{"name": "flux1-single", "dims": {"rows": 4608, "cols": 3072}}, ...], written by ako tune.
      Field tuned = c["tuned_on"];
      tuned.require_array();
      for (const Field& t : tuned.elements()) {
        t.only_keys({"name", "dims"});
        ShapeSpec shape;
        shape.name = t["name"].non_empty_string();
        for (const auto& [dim, value] : t["dims"].members()) {
          if (std::find(spec.dims.begin(), spec.dims.end(), dim) == spec.dims.end())
            value.fail(fmt::format("unknown dim; expected one of {}", join_names(spec.dims)));
          shape.dims[dim] = value.integer();
        }
        cls.tuned_on.push_back(std::move(shape));
      }
    }
    if (c["partial"].present()) {
      Field partial = c["partial"];
      partial.only_keys({"evaluated", "kept", "winner_faster_pct"});
      cls.partial = ConfigClass::Partial{partial["evaluated"].integer(), partial["kept"].boolean(),
                                         partial["winner_faster_pct"].number()};
    }
    // Missing params fall back to the first allowed value, as for a case no class matches.
    for (const auto& p : spec.solution.params) cls.params.emplace(p.name, p.values.front());
    out.push_back(std::move(cls));
  }
  return out;
}

namespace {

bool launch_ok(const std::vector<std::string>& exprs, bool grid, const ExprEnv& env) {
  int64_t product = 1;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const int64_t v = eval_int(exprs[i], env);
    const int64_t limit = grid ? (i == 0 ? (int64_t{1} << 31) - 1 : 65535) : (i == 2 ? 64 : 1024);
    if (v <= 0 || v > limit) return false;
    product *= v;
  }
  return grid || product <= 1024;
}

// The dims the classes' `when` expressions mention: what the config says matters.
std::vector<std::string> selecting_dims(const TaskSpec& spec, const std::vector<ConfigClass>& classes) {
  std::vector<std::string> out;
  for (const auto& d : spec.dims)
    for (const auto& c : classes)
      if (!c.when.empty() && expr_identifiers(c.when).count(d)) {
        out.push_back(d);
        break;
      }
  return out.empty() ? spec.dims : out;
}

double log_distance(const ExprEnv& env, const ShapeSpec& shape, const std::vector<std::string>& dims) {
  double d = 0;
  for (const auto& name : dims) {
    auto a = env.find(name);
    auto b = shape.dims.find(name);
    if (a == env.end() || b == shape.dims.end()) return std::numeric_limits<double>::infinity();
    d += std::abs(std::log2(std::max<double>(1, static_cast<double>(a->second))) -
                  std::log2(std::max<double>(1, static_cast<double>(b->second))));
  }
  return d;
}

std::string shape_names(const std::vector<ShapeSpec>& shapes) {
  std::vector<std::string> names;
  for (const auto& s : shapes) names.push_back(s.name);
  return join_names(names, ", ");
}

}  // namespace

bool params_valid(const TaskSpec& spec, const std::map<std::string, int64_t>& params, const ExprEnv& env) {
  ExprEnv e = env;
  for (const auto& [k, v] : params) e[k] = v;
  try {
    for (const auto& c : spec.solution.constraints)
      if (!eval_bool(c, e)) return false;
    return launch_ok(spec.solution.block, false, e) && launch_ok(spec.solution.grid, true, e);
  } catch (const Error&) {
    return false;  // e.g. a division by zero for these params: they cannot run here
  }
}

int first_matching_class(const std::vector<ConfigClass>& classes, const ExprEnv& env) {
  for (size_t i = 0; i < classes.size(); ++i)
    if (classes[i].when.empty() || eval_bool(classes[i].when, env)) return static_cast<int>(i);
  return -1;
}

ClassChoice choose_config_class(const TaskSpec& spec, const std::vector<ConfigClass>& classes, const ExprEnv& env,
                                const std::string& shape) {
  ClassChoice out;
  out.matched = first_matching_class(classes, env);
  out.index = out.matched;
  const bool any_tuned =
      std::any_of(classes.begin(), classes.end(), [](const ConfigClass& c) { return !c.tuned_on.empty(); });
  if (!any_tuned) return out;  // a hand-written config: the first matching class, as always

  auto tuned_on = [&](const ConfigClass& c) {
    return std::any_of(c.tuned_on.begin(), c.tuned_on.end(), [&](const ShapeSpec& s) { return s.name == shape; });
  };
  // A class whose `when` takes the shape serves it with its own params, tuned or not: the config
  // says so, and a tune of other shapes must not change what this one runs (borrowing a tuned
  // neighbour's params here once made Wan's norm 40% slower after a tune of the image shapes).
  if (out.matched >= 0) {
    const ConfigClass& c = classes[out.matched];
    out.tuned_here = tuned_on(c);
    if (c.tuned_on.empty())
      out.note = fmt::format("class {} used for shape {} (not tuned; the class has no tuned params)", c.name, shape);
    else if (!out.tuned_here)
      out.note = fmt::format("class {} used for shape {} (not tuned; the class was tuned on {})", c.name, shape,
                             shape_names(c.tuned_on));
    return out;
  }

  // No class takes the shape: rather than the first allowed values, the nearest tuned class
  // whose params can run on it.
  const std::vector<std::string> dims = selecting_dims(spec, classes);
  double best = std::numeric_limits<double>::infinity();
  int nearest = -1;
  for (size_t i = 0; i < classes.size(); ++i) {
    if (classes[i].tuned_on.empty() || !params_valid(spec, classes[i].params, env)) continue;
    for (const auto& s : classes[i].tuned_on)
      if (const double d = log_distance(env, s, dims); d < best) {
        best = d;
        nearest = static_cast<int>(i);
      }
  }
  if (nearest < 0) {
    out.note = fmt::format("shape {} (not tuned): no class takes it and no tuned class's params are valid for it; "
                           "the first allowed values",
                           shape);
    return out;
  }
  out.index = nearest;
  out.nearest = true;
  out.tuned_here = tuned_on(classes[nearest]);
  out.note = fmt::format("nearest class {} used for shape {} (not tuned; no class takes it)", classes[nearest].name,
                         shape);
  return out;
}

}  // namespace ako::task
