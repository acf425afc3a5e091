// expand_cases: a validated TaskSpec becomes concrete cases, every expression evaluated.
// Failures here are spec (or config / override) problems, so they are SpecErrors naming the
// field whose expression failed and the case it failed for.
#include "task/cases.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/config.hpp"
#include "task/entry_view.hpp"
#include "task/expr.hpp"
#include "task/json_field.hpp"
#include "task/name_expression.hpp"

namespace ako::task {
namespace {

using Flags = std::map<std::string, bool>;
using Axes = std::map<std::string, model::AxisValue>;
using Params = std::map<std::string, int64_t>;

// One point of the variant space: a value for every flag and every typed axis.
struct Variant {
  Flags flags;
  Axes axes;
};

// Every combination: flags first, then axes, in declaration order, the first varying slowest;
// flags true before false, axis values in the order given.
std::vector<Variant> variants(const TaskSpec& spec) {
  std::vector<Variant> out{Variant{}};
  auto expand = [&out](const std::string& name, const std::vector<model::AxisValue>& values, bool flag) {
    std::vector<Variant> next;
    for (const Variant& v : out)
      for (const auto& value : values) {
        Variant w = v;
        if (flag) w.flags[name] = std::get<bool>(value);
        else w.axes[name] = value;
        next.push_back(std::move(w));
      }
    out = std::move(next);
  };
  for (const auto& f : spec.flags) expand(f, {true, false}, true);
  for (const auto& a : spec.axes) {
    std::vector<model::AxisValue> values;
    for (const auto& v : a.strings) values.emplace_back(v);
    for (int64_t v : a.integers) values.emplace_back(v);
    expand(a.name, values, false);
  }
  return out;
}

std::string params_text(const Params& params) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : params) parts.push_back(fmt::format("{}={}", k, v));
  return parts.empty() ? std::string("no params") : join_names(parts, " ");
}

std::string values_text(const std::vector<int64_t>& values) {
  std::vector<std::string> parts;
  for (int64_t v : values) parts.push_back(std::to_string(v));
  return join_names(parts);
}

std::string make_label(const std::string& shape, DType dtype, const Flags& flags, const Axes& axes) {
  std::string label = shape + " " + std::string(dtype_name(dtype));
  for (const auto& [name, on] : flags) label += (on ? " " : " no") + name;
  for (const auto& [name, value] : axes) label += " " + name + "=" + model::axis_value_text(value);
  return label;
}

std::vector<const ShapeSpec*> select_shapes(const TaskSpec& spec, const CaseFilter& filter) {
  std::vector<const ShapeSpec*> out;
  for (const auto& name : filter.shapes) {
    if (std::none_of(spec.shapes.begin(), spec.shapes.end(), [&](const ShapeSpec& s) { return s.name == name; })) {
      std::vector<std::string> known;
      for (const auto& s : spec.shapes) known.push_back(s.name);
      throw Error(fmt::format("task {} has no shape '{}'; its shapes: {}", spec.name, name, join_names(known)));
    }
  }
  for (const auto& s : spec.shapes)
    if (filter.shapes.empty() || std::count(filter.shapes.begin(), filter.shapes.end(), s.name)) out.push_back(&s);
  return out;
}

std::vector<DType> select_dtypes(const TaskSpec& spec, const CaseFilter& filter) {
  for (DType t : filter.dtypes) {
    if (std::find(spec.dtypes.begin(), spec.dtypes.end(), t) == spec.dtypes.end()) {
      std::vector<std::string> known;
      for (DType k : spec.dtypes) known.emplace_back(dtype_name(k));
      throw Error(fmt::format("task {} does not run in {}; its dtypes: {}", spec.name, dtype_name(t), join_names(known)));
    }
  }
  std::vector<DType> out;
  for (DType t : spec.dtypes)
    if (filter.dtypes.empty() || std::count(filter.dtypes.begin(), filter.dtypes.end(), t)) out.push_back(t);
  return out;
}

void check_overrides(const TaskSpec& spec, const ParamOverrides& overrides) {
  std::vector<std::string> names;
  for (const auto& p : spec.solution.params) names.push_back(p.name);
  for (const auto& [name, value] : overrides) {
    auto it = std::find_if(spec.solution.params.begin(), spec.solution.params.end(),
                           [&](const TunableParam& p) { return p.name == name; });
    if (it == spec.solution.params.end())
      throw SpecError(spec.file.string(), "solution.params",
                      fmt::format("override {}={}: unknown parameter; expected one of {}", name, value,
                                  names.empty() ? std::string("(none declared)") : join_names(names)));
    if (std::find(it->values.begin(), it->values.end(), value) == it->values.end())
      throw SpecError(spec.file.string(), "solution.params." + name,
                      fmt::format("override {}={}: expected one of {}", name, value, values_text(it->values)));
  }
}

// Evaluates one expression of the spec for one case; failures become SpecErrors on `field`.
int64_t eval_field(const TaskSpec& spec, const std::string& field, const std::string& expr, const ExprEnv& env,
                   const std::string& label) {
  try {
    return eval_int(expr, env);
  } catch (const SpecError&) {
    throw;
  } catch (const Error& e) {
    throw SpecError(spec.file.string(), field, fmt::format("case \"{}\": {}", label, e.what()));
  }
}

struct ParamChoice {
  Params params;
  std::string config_class;
  std::string origin;  // for messages: where the params came from
  std::string note;    // the shape was not tuned: which class stands in (task/config.hpp)
};

ParamChoice choose_params(const TaskSpec& spec, const ExprEnv& env, const ParamOverrides& overrides,
                          const std::string& label, const std::string& shape) {
  ParamChoice choice;
  const std::string config_file = (spec.root / spec.config_file).string();
  // The first class whose `when` holds; with a tuned config and no class for the shape, the
  // nearest tuned class (task/config.hpp).
  ClassChoice cc;
  try {
    cc = choose_config_class(spec, spec.config_classes, env, shape);
  } catch (const Error& e) {
    throw SpecError(config_file, "classes[].when", fmt::format("case \"{}\": {}", label, e.what()));
  }
  if (cc.index >= 0) {
    const ConfigClass& cls = spec.config_classes[cc.index];
    choice.params = cls.params;
    choice.config_class = cls.name;
    choice.origin = fmt::format("config class \"{}\" of {}", cls.name, config_file);
    if (cc.nearest) choice.origin += fmt::format(" (nearest tuned class for shape {})", shape);
    choice.note = cc.note;
  }
  if (choice.config_class.empty()) {
    for (const auto& p : spec.solution.params) choice.params[p.name] = p.values.front();
    choice.config_class = "default";
    choice.origin = "the first allowed values (no config class matched)";
  }
  for (const auto& [name, value] : overrides) choice.params[name] = value;
  if (!overrides.empty()) choice.origin += " with overrides";
  return choice;
}

std::array<uint32_t, 3> launch_dims(const TaskSpec& spec, const std::string& kernel_field, bool grid,
                                    const std::vector<std::string>& exprs, const ExprEnv& env,
                                    const std::string& label) {
  const char* what = grid ? "grid" : "block";
  std::array<uint32_t, 3> out{1, 1, 1};
  int64_t product = 1;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const std::string field = fmt::format("{}.{}[{}]", kernel_field, what, i);
    int64_t v = eval_field(spec, field, exprs[i], env, label);
    // CUDA's limits: grid x < 2^31, grid y/z < 65536; block x/y <= 1024, z <= 64, x*y*z <= 1024.
    int64_t limit = grid ? (i == 0 ? (int64_t{1} << 31) - 1 : 65535) : (i == 2 ? 64 : 1024);
    if (v <= 0 || v > limit)
      throw SpecError(spec.file.string(), field,
                      fmt::format("case \"{}\": \"{}\" = {}; expected {} {} from 1 to {}", label, exprs[i], v, what,
                                  "xyz"[i], limit));
    product *= v;
    out[i] = static_cast<uint32_t>(v);
  }
  if (!grid && product > 1024)
    throw SpecError(spec.file.string(), fmt::format("{}.block", kernel_field),
                    fmt::format("case \"{}\": block has {} threads; expected at most 1024", label, product));
  return out;
}

// The evaluated scalars of one case: integers exactly (i64 may exceed a double's 53 bits).
struct ScalarValues {
  std::map<std::string, int64_t> ints;
  std::map<std::string, double> floats;
};

ScalarValues evaluate_scalars(const TaskSpec& spec, const std::vector<ScalarSpec>& specs, const std::string& prefix,
                              const ExprEnv& env, const std::string& label, ScalarValues out = {}) {
  for (size_t i = 0; i < specs.size(); ++i) {
    const ScalarSpec& s = specs[i];
    if (s.type == ScalarType::f32) {
      out.floats[s.name] = std::stod(s.value);
      continue;
    }
    const std::string field = fmt::format("{}scalars[{}].value", prefix, i);
    int64_t v = eval_field(spec, field, s.value, env, label);
    if (s.type == ScalarType::i32 && (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))
      throw SpecError(spec.file.string(), field,
                      fmt::format("case \"{}\": \"{}\" = {} does not fit in i32; expected type i64", label, s.value, v));
    out.ints[s.name] = v;
  }
  return out;
}

DType buffer_dtype(const BufferSpec& b, DType case_dtype, const Axes& axes) {
  if (b.dtype == "$dtype") return case_dtype;
  if (b.dtype[0] == '$') {
    const std::string& chosen = std::get<std::string>(axes.at(b.dtype.substr(1)));
    return chosen == "same" ? case_dtype : *parse_dtype(chosen);
  }
  return *parse_dtype(b.dtype);
}

// The extents of buffer `i`, each positive; `count` their product.
std::vector<int64_t> buffer_extents(const TaskSpec& spec, size_t i, const ExprEnv& env, const std::string& label,
                                    uint64_t& count) {
  const BufferSpec& b = spec.buffers[i];
  std::vector<int64_t> extents;
  count = 1;
  for (size_t d = 0; d < b.shape.size(); ++d) {
    const std::string field = fmt::format("buffers[{}].shape[{}]", i, d);
    int64_t extent = eval_field(spec, field, b.shape[d], env, label);
    if (extent <= 0)
      throw SpecError(spec.file.string(), field,
                      fmt::format("case \"{}\": \"{}\" = {}; expected a positive extent", label, b.shape[d], extent));
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(extent), &count))
      throw SpecError(spec.file.string(), fmt::format("buffers[{}].shape", i),
                      fmt::format("case \"{}\": element count overflows 64 bits", label));
    extents.push_back(extent);
  }
  return extents;
}

// A view evaluated and checked to lie inside its storage: its first and last element.
model::View make_view(const TaskSpec& spec, size_t i, const std::vector<model::Buffer>& earlier,
                      const std::vector<int64_t>& extents, const ExprEnv& env, const std::string& label) {
  const ViewSpec& vs = *spec.buffers[i].view;
  const std::string field = fmt::format("buffers[{}].view", i);
  model::View v;
  v.of = static_cast<int>(std::find_if(earlier.begin(), earlier.end(), [&](const model::Buffer& x) { return x.name == vs.of; }) -
                          earlier.begin());
  v.offset = eval_field(spec, field + ".offset", vs.offset, env, label);
  v.extents = extents;
  int64_t last = v.offset;
  for (size_t d = 0; d < vs.strides.size(); ++d) {
    const int64_t stride = eval_field(spec, fmt::format("{}.strides[{}]", field, d), vs.strides[d], env, label);
    if (stride < 0)
      throw SpecError(spec.file.string(), fmt::format("{}.strides[{}]", field, d),
                      fmt::format("case \"{}\": stride {} is negative; expected 0 (broadcast) or more", label, stride));
    v.strides.push_back(stride);
    last += (extents[d] - 1) * stride;
  }
  const uint64_t storage = earlier[v.of].count;
  if (v.offset < 0 || static_cast<uint64_t>(last) >= storage)
    throw SpecError(spec.file.string(), field,
                    fmt::format("case \"{}\": the view reaches elements {} to {} of \"{}\", which has {}", label, v.offset,
                                last, vs.of, storage));
  return v;
}

std::vector<model::Buffer> make_buffers(const TaskSpec& spec, DType dtype, const Variant& variant, const ExprEnv& env,
                                        const std::string& label) {
  std::vector<model::Buffer> out;
  for (size_t i = 0; i < spec.buffers.size(); ++i) {
    const BufferSpec& b = spec.buffers[i];
    model::Buffer job;
    job.name = b.name;
    job.role = b.role;
    job.present = b.present_if.empty() || eval_field(spec, fmt::format("buffers[{}].present_if", i), b.present_if, env, label) != 0;
    job.extents = buffer_extents(spec, i, env, label, job.count);
    if (b.view) {
      job.view = make_view(spec, i, out, job.extents, env, label);
      const model::Buffer& storage = out[job.view->of];
      job.dtype = storage.dtype;
      job.present = job.present && storage.present;
    } else {
      job.dtype = buffer_dtype(b, dtype, variant.axes);
    }
    job.init.dist = b.init.dist;
    job.init.a = b.init.a;
    job.init.b = b.init.b;
    if (b.init.dist == "range") {
      job.init.low = eval_field(spec, fmt::format("buffers[{}].init.low", i), b.init.low, env, label);
      job.init.high = eval_field(spec, fmt::format("buffers[{}].init.high", i), b.init.high, env, label);
      if (job.init.low >= job.init.high)
        throw SpecError(spec.file.string(), fmt::format("buffers[{}].init", i),
                        fmt::format("case \"{}\": range [{}, {}) is empty", label, job.init.low, job.init.high));
    }
    if (!dtype_is_integer(job.dtype)) {
      auto own = b.tolerance.find(job.dtype);
      job.tolerance = own != b.tolerance.end() ? own->second
                      : spec.tolerance.count(job.dtype) ? spec.tolerance.at(job.dtype) : default_tolerance(job.dtype);
      auto own_factor = b.error_factor.find(job.dtype);
      job.error_factor = own_factor != b.error_factor.end() ? own_factor->second
                         : spec.error_factor.count(job.dtype) ? spec.error_factor.at(job.dtype)
                                                              : default_error_factor(job.dtype);
    } else {
      job.tolerance = model::Tolerance{0, 0};
    }
    out.push_back(std::move(job));
  }
  return out;
}

// Bytes the op must move (Case::bytes).
double roofline_bytes(const std::vector<model::Buffer>& buffers) {
  std::vector<bool> has_views(buffers.size(), false);
  for (const auto& b : buffers)
    if (b.view && b.present) has_views[b.view->of] = true;
  double bytes = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const model::Buffer& b = buffers[i];
    if (!b.present || has_views[i]) continue;
    const double elements = static_cast<double>(b.view ? model::distinct_elements(*b.view) : b.count);
    bytes += elements * static_cast<double>(dtype_size(b.dtype)) * (b.role == model::Role::inout ? 2 : 1);
  }
  return bytes;
}

// Elements of the largest output (Case::elements).
double output_elements(const std::vector<model::Buffer>& buffers) {
  std::vector<bool> has_views(buffers.size(), false);
  for (const auto& b : buffers)
    if (b.view && b.present) has_views[b.view->of] = true;
  uint64_t largest = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const model::Buffer& b = buffers[i];
    if (!b.present || has_views[i] || b.role == model::Role::in) continue;
    largest = std::max(largest, b.count);
  }
  return static_cast<double>(largest);
}

// `extra_scalars`: a baseline's own scalars (their values are in `scalars` too).
// The kernel name's placeholders for one case: {T} and {T_<buffer>} (C types; double for
// every floating type in the oracle), {dtype}, each flag, axis, param and dim.
std::map<std::string, std::string> name_placeholders_of(const Case& c, const Params& params, bool fp64) {
  auto c_type = [fp64](DType t) { return std::string(fp64 && !dtype_is_integer(t) ? "double" : dtype_cuda_type(t)); };
  std::map<std::string, std::string> placeholders{{"T", c_type(c.dtype)}, {"dtype", std::string(dtype_name(c.dtype))}};
  for (const auto& b : c.buffers) placeholders["T_" + b.name] = c_type(b.dtype);
  for (const auto& [name, on] : c.flags) placeholders[name] = on ? "true" : "false";
  for (const auto& [name, v] : c.axes) placeholders[name] = model::axis_value_text(v);
  for (const auto& [name, v] : params) placeholders[name] = std::to_string(v);
  for (const auto& [name, v] : c.shape->dims) placeholders[name] = std::to_string(v);
  return placeholders;
}

KernelInstance instantiate(const TaskSpec& spec, const KernelSpec& k, const std::string& kernel_field,
                           const ExprEnv& env, const Case& c, const Params& params, const ScalarValues& scalars,
                           const std::string& label, const std::vector<ScalarSpec>& extra_scalars = {},
                           bool fp64 = false) {
  KernelInstance inst;
  inst.file = std::filesystem::absolute(spec.root / k.file).lexically_normal();

  const std::map<std::string, std::string> placeholders = name_placeholders_of(c, params, fp64);
  try {
    inst.name_expression = expand_name_expression(k.kernel, placeholders);
  } catch (const Error& e) {
    throw SpecError(spec.file.string(), kernel_field + ".kernel", fmt::format("case \"{}\": {}", label, e.what()));
  }

  inst.grid = launch_dims(spec, kernel_field, true, k.grid, env, label);
  inst.block = launch_dims(spec, kernel_field, false, k.block, env, label);
  int64_t shared = eval_field(spec, kernel_field + ".shared_bytes", k.shared_bytes, env, label);
  if (shared < 0 || shared > std::numeric_limits<uint32_t>::max())
    throw SpecError(spec.file.string(), kernel_field + ".shared_bytes",
                    fmt::format("case \"{}\": \"{}\" = {}; expected 0 to 2^32-1 bytes", label, k.shared_bytes, shared));
  inst.shared_bytes = static_cast<uint32_t>(shared);

  for (const auto& name : k.args) {
    model::Arg arg;
    auto buf = std::find_if(c.buffers.begin(), c.buffers.end(), [&](const model::Buffer& b) { return b.name == name; });
    if (buf != c.buffers.end()) {
      if (buf->present) {
        arg.kind = model::Arg::Kind::buffer;
        arg.buffer = static_cast<int>(buf - c.buffers.begin());
      }  // else: kind null, the kernel sees nullptr
    } else {
      auto named = [&](const ScalarSpec& x) { return x.name == name; };
      auto s = std::find_if(spec.scalars.begin(), spec.scalars.end(), named);
      if (s == spec.scalars.end()) s = std::find_if(extra_scalars.begin(), extra_scalars.end(), named);
      if (s->type == ScalarType::f32) {
        arg.kind = model::Arg::Kind::f32;
        arg.f = scalars.floats.at(name);
      } else {
        arg.kind = s->type == ScalarType::i32 ? model::Arg::Kind::i32 : model::Arg::Kind::i64;
        arg.i = scalars.ints.at(name);
      }
    }
    inst.args.push_back(arg);
  }
  return inst;
}

// A baseline for one case: absent (with the reason) when its `when` is false or its required
// file is missing; otherwise its instance, its lets and elem_bytes usable in its expressions.
BaselineInstance instantiate_baseline(const TaskSpec& spec, size_t i, const ExprEnv& case_env, const Case& c,
                                      const ScalarValues& case_scalars, const std::string& label) {
  const BaselineSpec& b = spec.baselines[i];
  const std::string field = fmt::format("baselines[{}]", i);
  BaselineInstance out;
  out.name = b.name;
  ExprEnv env = case_env;
  env["elem_bytes"] = static_cast<int64_t>(dtype_size(c.dtype));
  if (!b.when.empty() && eval_field(spec, field + ".when", b.when, env, label) == 0) {
    out.absent_reason = fmt::format("not applicable to this case (when: {})", b.when);
    return out;
  }
  if (!b.requires_file.empty() && !std::filesystem::exists(spec.root / b.requires_file)) {
    out.absent_reason = fmt::format("not installed: {} is missing{}", b.requires_file.string(),
                                    b.requires_hint.empty() ? "" : "; " + b.requires_hint);
    return out;
  }
  Params lets;
  for (const auto& [name, expr] : b.lets) env[name] = lets[name] = eval_field(spec, field + ".let." + name, expr, env, label);
  const ScalarValues scalars = evaluate_scalars(spec, b.scalars, field + ".", env, label, case_scalars);
  for (const auto& dir : b.include_dirs)
    out.options.push_back("-I" + std::filesystem::absolute(spec.root / dir).lexically_normal().string());
  out.options.insert(out.options.end(), b.options.begin(), b.options.end());
  out.kernel = instantiate(spec, b.kernel, field, env, c, lets, scalars, label, b.scalars);
  return out;
}

void check_constraints(const TaskSpec& spec, const ExprEnv& env, const ParamChoice& choice, const std::string& label) {
  for (size_t i = 0; i < spec.solution.constraints.size(); ++i) {
    const std::string field = fmt::format("solution.constraints[{}]", i);
    const std::string& expr = spec.solution.constraints[i];
    if (eval_field(spec, field, expr, env, label) != 0) continue;
    throw SpecError(spec.file.string(), field,
                    fmt::format("constraint \"{}\" does not hold for case \"{}\" with {} (params from {})", expr,
                                label, params_text(choice.params), choice.origin));
  }
}

// The expression environment of a case: dims, flags (0 / 1), axes (integers, or a string's
// string_value so that axis == 'value' compares).
ExprEnv case_env(const ShapeSpec& shape, const Variant& variant) {
  ExprEnv env;
  for (const auto& [name, v] : shape.dims) env[name] = v;
  for (const auto& [name, on] : variant.flags) env[name] = on ? 1 : 0;
  for (const auto& [name, v] : variant.axes)
    env[name] = std::holds_alternative<int64_t>(v) ? std::get<int64_t>(v) : string_value(std::get<std::string>(v));
  return env;
}

Case make_case(const TaskSpec& spec, const ShapeSpec& shape, DType dtype, const Variant& variant, bool compare,
               const ParamOverrides& overrides) {
  Case c;
  c.kind = compare ? "compare" : "reference_check";
  c.shape = &shape;
  c.dtype = dtype;
  c.flags = variant.flags;
  c.axes = variant.axes;
  const std::string label = c.label_text = make_label(shape.name, dtype, variant.flags, variant.axes);

  const ExprEnv env = case_env(shape, variant);
  c.buffers = make_buffers(spec, dtype, variant, env, label);
  ScalarValues scalars = evaluate_scalars(spec, spec.scalars, "", env, label);
  for (const auto& [name, v] : scalars.ints) c.scalars[name] = static_cast<double>(v);
  for (const auto& [name, v] : scalars.floats) c.scalars[name] = v;
  c.reference = instantiate(spec, spec.reference, "reference", env, c, {}, scalars, label);

  if (compare) {
    ParamChoice choice = choose_params(spec, class_env(spec, env, dtype), overrides, label, shape.name);
    // The solution runs as the port runs it: with the dims its entry point can see (a dim no
    // tensor of this case is shaped by is 1 there), in its launch and its scalar arguments.
    ExprEnv solution_env = as_entry_sees(spec, env);
    const ScalarValues solution_scalars =
        solution_env == env ? scalars : evaluate_scalars(spec, spec.scalars, "", solution_env, label);
    for (const auto& [name, v] : choice.params) solution_env[name] = v;
    check_constraints(spec, solution_env, choice, label);
    c.params = choice.params;
    c.config_class = choice.config_class;
    c.config_note = choice.note;
    c.solution = instantiate(spec, spec.solution, "solution", solution_env, c, c.params, solution_scalars, label);
    for (size_t i = 0; i < spec.baselines.size(); ++i)
      c.baselines.push_back(instantiate_baseline(spec, i, env, c, scalars, label));
  }
  // reference_check: the reference's ground truth; compare: the precision check's.
  c.oracle = instantiate(spec, spec.oracle, "oracle", env, c, {}, scalars, label, {}, true);
  c.bytes = roofline_bytes(c.buffers);
  c.elements = output_elements(c.buffers);
  return c;
}

// The spec's top-level `when`: does this combination run on this shape at all? The dtype is
// not in it (every dtype of a shape runs the same combinations).
bool selected(const TaskSpec& spec, const ShapeSpec& shape, const Variant& v) {
  if (spec.when.empty()) return true;
  const std::string label = make_label(shape.name, spec.dtypes.front(), v.flags, v.axes);
  return eval_field(spec, "when", spec.when, case_env(shape, v), label) != 0;
}

// The combinations a shape runs; a compare shape left with none is a spec error (its name in
// `shapes` would otherwise be silently ignored).
std::vector<const Variant*> shape_variants(const TaskSpec& spec, const ShapeSpec& shape,
                                           const std::vector<Variant>& combos, bool compare) {
  std::vector<const Variant*> out;
  for (const Variant& v : combos)
    if (selected(spec, shape, v)) out.push_back(&v);
  if (out.empty() && compare)
    throw SpecError(spec.file.string(), "when",
                    fmt::format("expected at least one case on shape \"{}\", but \"{}\" is false for every "
                                "combination of flags and axes there",
                                shape.name, spec.when));
  return out;
}

}  // namespace

std::string Case::label() const { return label_text; }

std::vector<ExprEnv> variant_envs(const TaskSpec& spec) {
  static const ShapeSpec no_dims;
  std::vector<ExprEnv> out;
  for (const Variant& v : variants(spec)) out.push_back(case_env(no_dims, v));
  return out;
}

std::vector<ShapeVariant> shape_variant_cases(const TaskSpec& spec, const ShapeSpec& shape) {
  const auto combos = variants(spec);
  std::vector<ShapeVariant> out;
  const auto chosen = shape_variants(spec, shape, combos, true);
  for (DType dtype : spec.dtypes)
    for (const Variant* v : chosen)
      out.push_back({class_env(spec, case_env(shape, *v), dtype), {make_label(shape.name, dtype, v->flags, v->axes)}});
  return out;
}

bool where_holds(const std::string& where, const ExprEnv& env) {
  if (where.empty()) return true;
  try {
    return eval_bool(where, env);
  } catch (const std::exception& e) {
    throw Error(fmt::format("--where '{}': {}", where, e.what()));
  }
}

ExprEnv class_env(const TaskSpec& spec, ExprEnv env, DType dtype) {
  env = as_entry_sees(spec, std::move(env));
  env["dtype"] = string_value(dtype_name(dtype));
  return env;
}

std::vector<Case> expand_cases(const TaskSpec& spec, const CaseFilter& filter, const ParamOverrides& overrides,
                               bool with_checks) {
  check_overrides(spec, overrides);
  const auto shapes = select_shapes(spec, filter);
  const auto dtypes = select_dtypes(spec, filter);
  const auto combos = variants(spec);

  auto taken = [&](const ShapeSpec& shape, DType dtype, const Variant& v) {
    return filter.where.empty() || where_holds(filter.where, class_env(spec, case_env(shape, v), dtype));
  };
  std::vector<Case> cases;
  for (const ShapeSpec* shape : shapes) {
    const auto chosen = shape_variants(spec, *shape, combos, true);
    for (DType dtype : dtypes)
      for (const Variant* v : chosen)
        if (taken(*shape, dtype, *v)) cases.push_back(make_case(spec, *shape, dtype, *v, true, overrides));
  }
  if (!filter.where.empty() && cases.empty())
    throw Error(fmt::format("--where '{}' holds for no case of the shapes and dtypes selected", filter.where));
  if (with_checks)
    for (const ShapeSpec& shape : spec.check_shapes) {
      const auto chosen = shape_variants(spec, shape, combos, false);
      for (DType dtype : dtypes)
        for (const Variant* v : chosen)
          if (taken(shape, dtype, *v)) cases.push_back(make_case(spec, shape, dtype, *v, false, overrides));
    }
  return cases;
}

}  // namespace ako::task
