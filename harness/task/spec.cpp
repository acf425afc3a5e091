// parse_task: every field of tasks/<name>/task.json checked up front (format: tasks/README.md),
// so that later stages can trust a TaskSpec and errors point at the field to fix.
#include "task/spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/device_config.hpp"
#include "task/json_field.hpp"
#include "task/name_expression.hpp"
#include "task/spec_checks.hpp"
#include "task/spec_parse.hpp"

namespace ako::task {
namespace {

const std::vector<std::string> kDtypeNames = {"bf16", "fp16", "fp32"};  // what a case runs in
// Names the expression language or the name templates already give a meaning to.
const std::vector<std::string> kReservedNames = {"T", "dtype", "ceil_div", "min", "max", "gcd", "pow2", "elem_bytes"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

DType dtype_of(const Field& f) {
  std::string s = f.string();
  auto t = parse_dtype(s);
  if (!t || dtype_is_integer(*t)) f.fail(fmt::format("expected one of {}, got \"{}\"", join_names(kDtypeNames), s));
  return *t;
}

std::vector<std::string> identifier_list(const Field& f, std::vector<std::string>& taken, std::string_view what,
                                         bool required) {
  if (!f.present() && !required) return {};
  f.require_array();
  if (required && f.value().empty()) f.fail(fmt::format("expected a non-empty array of {} names", what));
  std::vector<std::string> out;
  for (const Field& e : f.elements()) {
    out.push_back(declared_name(e, taken, what));
    taken.push_back(out.back());
  }
  return out;
}

std::vector<DType> parse_dtypes(const Field& f) {
  f.require_array();
  if (f.value().empty()) f.fail("expected a non-empty array of dtypes (" + join_names(kDtypeNames) + ")");
  std::vector<DType> out;
  for (const Field& e : f.elements()) {
    DType t = dtype_of(e);
    if (std::find(out.begin(), out.end(), t) != out.end())
      e.fail(fmt::format("expected each dtype once, got \"{}\" again", dtype_name(t)));
    out.push_back(t);
  }
  return out;
}

}  // namespace

std::string declared_name(const Field& f, const std::vector<std::string>& taken, std::string_view what) {
  std::string name = f.string();
  if (!is_identifier(name))
    f.fail(fmt::format("expected {} name that is an identifier ([A-Za-z_][A-Za-z0-9_]*), got \"{}\"", what, name));
  if (contains(kReservedNames, name))
    f.fail(fmt::format("expected {} name other than the reserved {}, got \"{}\"", what,
                       join_names(kReservedNames), name));
  if (contains(taken, name))
    f.fail(fmt::format("expected {} name not used by another dim, flag, axis or param, got \"{}\"", what, name));
  return name;
}

std::vector<ScalarSpec> parse_scalars(const Field& f, const TaskSpec& spec, const std::vector<std::string>& known) {
  std::vector<ScalarSpec> out;
  if (!f.present()) return out;
  f.require_array();
  for (const Field& e : f.elements()) {
    e.only_keys({"name", "type", "value"});
    ScalarSpec s;
    s.name = e["name"].non_empty_string();
    bool taken = std::any_of(spec.buffers.begin(), spec.buffers.end(), [&](const BufferSpec& b) { return b.name == s.name; }) ||
                 std::any_of(spec.scalars.begin(), spec.scalars.end(), [&](const ScalarSpec& o) { return o.name == s.name; }) ||
                 std::any_of(out.begin(), out.end(), [&](const ScalarSpec& o) { return o.name == s.name; });
    if (taken) e["name"].fail(fmt::format("expected a name no other buffer or scalar has, got \"{}\"", s.name));
    std::string type = e["type"].string();
    if (type == "i32") s.type = ScalarType::i32;
    else if (type == "i64") s.type = ScalarType::i64;
    else if (type == "f32") s.type = ScalarType::f32;
    else e["type"].fail(fmt::format("expected one of i32, i64, f32, got \"{}\"", type));
    Field value = e["value"];
    if (s.type == ScalarType::f32) {
      double v = value.number();
      if (!std::isfinite(v)) value.fail("expected a finite number, " + value.got());
      s.value = value.value().dump();  // JSON's shortest round-trip spelling
    } else {
      s.value = value.expression();
      check_expression(value, s.value, known, "an integer expression over " + join_names(identifiers_only(known)));
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

std::vector<std::string> geometry(const Field& f, const std::vector<std::string>& known, std::string_view what) {
  f.require_array();
  if (f.value().empty() || f.value().size() > 3)
    f.fail(fmt::format("expected 1 to 3 integer expressions ({} x, y, z), got {}", what, f.value().size()));
  std::vector<std::string> out;
  for (const Field& e : f.elements()) {
    out.push_back(e.expression());
    check_expression(e, out.back(), known, "an integer expression over " + join_names(identifiers_only(known)));
  }
  return out;
}

std::filesystem::path existing_file(const Field& f, const std::filesystem::path& root) {
  std::filesystem::path rel = f.non_empty_string();
  std::filesystem::path resolved = root / rel;
  if (!std::filesystem::is_regular_file(resolved))
    f.fail(fmt::format("expected an existing file relative to the repository root; {} does not exist", resolved.string()));
  return rel;
}

std::vector<TunableParam> parse_params(const Field& f, std::vector<std::string> taken) {
  std::vector<TunableParam> out;
  if (!f.present()) return out;
  for (const auto& [name, values] : f.members()) {
    TunableParam p;
    if (!is_identifier(name) || contains(kReservedNames, name) || contains(taken, name))
      values.fail("expected a parameter name that is an identifier and not a dim, flag or reserved name (" +
                  join_names(kReservedNames) + ")");
    taken.push_back(name);
    p.name = name;
    values.require_array();
    if (values.value().empty()) values.fail("expected a non-empty array of allowed integer values");
    for (const Field& v : values.elements()) {
      int64_t x = v.integer();
      if (std::find(p.values.begin(), p.values.end(), x) != p.values.end())
        v.fail(fmt::format("expected each allowed value once, got {} again", x));
      p.values.push_back(x);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// Configs were one file (config.json) before they became one file per device in a folder.
// Reading such a file as default.json would hide which device it was tuned on, the very
// thing the folder makes explicit, so it is an error that says how to convert.
void refuse_single_config_file(const Field& f, const std::filesystem::path& config, const std::filesystem::path& root) {
  std::error_code ec;
  if (config.extension() != ".json" && !std::filesystem::is_regular_file(root / config, ec)) return;
  const std::filesystem::path folder = config.parent_path() / "configs";
  f.fail(fmt::format(
      "expected the folder of per-device configs (e.g. \"{0}\"), got the file \"{1}\". Convert: mkdir -p {0} && "
      "git mv {1} {0}/default.json (or {0}/device_name=<CUDA device name, spaces as _>.json when it was tuned on "
      "that GPU), then set solution.config to \"{0}\"",
      folder.string(), config.string()));
}

}  // namespace

KernelSpec parse_kernel(const Field& f, const TaskSpec& spec, KernelRole role, const KernelScope& scope) {
  const bool solution = role == KernelRole::solution;
  if (solution)
    f.only_keys({"file", "kernel", "args", "grid", "block", "shared_bytes", "params", "constraints", "config", "allow"});
  if (role == KernelRole::oracle && !f.present())
    f.fail("required: the task's fp64 oracle (a kernel in double precision the reference is checked against on "
           "check_shapes; tasks/README.md, \"Oracle\")");
  if (role == KernelRole::reference || role == KernelRole::oracle)
    f.only_keys({"file", "kernel", "args", "grid", "block", "shared_bytes"});
  KernelSpec k;
  k.file = existing_file(f["file"], spec.root);
  const std::vector<std::string> names = expression_names(spec);
  if (solution) k.params = parse_params(f["params"], names);

  std::vector<std::string> param_names;
  for (const auto& p : k.params) param_names.push_back(p.name);
  const auto known = concat(concat(names, param_names), scope.known);
  std::vector<std::string> type_names;   // {T_<buffer>}: each buffer's element type
  for (const auto& b : spec.buffers) type_names.push_back("T_" + b.name);

  k.kernel = f["kernel"].non_empty_string();
  std::vector<std::string> placeholders;
  try {
    placeholders = name_placeholders(k.kernel);
  } catch (const Error& e) {
    f["kernel"].fail(std::string("expected a kernel name template; ") + e.what());
  }
  for (const auto& p : placeholders)
    if (p != "T" && p != "dtype" && (p.empty() || p[0] == '\'' || !contains(known, p)) && !contains(type_names, p))
      f["kernel"].fail(fmt::format("expected placeholders among {{T}}, {{dtype}}, {} and {}; got {{{}}}",
                                   join_names(type_names), join_names(identifiers_only(known)), p));

  Field args = f["args"];
  args.require_array();
  std::vector<std::string> arg_names;
  for (const auto& b : spec.buffers) arg_names.push_back(b.name);
  for (const auto& s : spec.scalars) arg_names.push_back(s.name);
  for (const auto& s : scope.scalars) arg_names.push_back(s.name);
  for (const Field& a : args.elements()) {
    std::string name = a.string();
    if (!contains(arg_names, name))
      a.fail(fmt::format("expected the name of a buffer or scalar ({}), got \"{}\"", join_names(arg_names), name));
    k.args.push_back(name);
  }

  k.grid = geometry(f["grid"], known, "grid");
  k.block = geometry(f["block"], known, "block");
  if (f["shared_bytes"].present()) {
    k.shared_bytes = f["shared_bytes"].expression();
    check_expression(f["shared_bytes"], k.shared_bytes, known, "an integer expression over " + join_names(identifiers_only(known)));
  }
  if (solution && f["constraints"].present()) {
    for (const Field& c : f["constraints"].elements()) {
      k.constraints.push_back(c.non_empty_string());
      check_expression(c, k.constraints.back(), known, "a boolean expression over " + join_names(identifiers_only(known)));
    }
  }
  if (solution && f["config"].present()) {
    k.config = f["config"].non_empty_string();
    refuse_single_config_file(f["config"], k.config, spec.root);
  }
  if (solution && f["allow"].present()) {
    f["allow"].require_array();
    for (const Field& a : f["allow"].elements()) {
      std::string name = a.string();
      if (!contains(kStaticChecks, name))
        a.fail(fmt::format("expected a static check ({}), got \"{}\"", join_names(kStaticChecks), name));
      if (!contains(k.allow, name)) k.allow.push_back(name);
    }
  }
  return k;
}

namespace {

std::vector<ShapeSpec> parse_shapes(const Field& f, const TaskSpec& spec, std::set<std::string>& names,
                                    bool required) {
  std::vector<ShapeSpec> out;
  if (!f.present() && !required) return out;
  f.require_array();
  if (required && f.value().empty()) f.fail("expected a non-empty array of shapes");
  for (const Field& e : f.elements()) {
    e.require_object();
    ShapeSpec s;
    s.name = e["name"].non_empty_string();
    bool plain = std::all_of(s.name.begin(), s.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    if (!plain) e["name"].fail(fmt::format("expected a name of letters, digits, '-', '_' and '.', got \"{}\"", s.name));
    if (!names.insert(s.name).second)
      e["name"].fail(fmt::format("expected a shape name unique across shapes and check_shapes, got \"{}\" again", s.name));
    if (e["source"].present()) s.source = e["source"].string();
    for (const auto& [key, value] : e.members()) {
      if (key == "name" || key == "source") continue;
      if (!contains(spec.dims, key))
        value.fail(fmt::format("unknown field; expected a declared dim ({}) or name, source", join_names(spec.dims)));
    }
    for (const auto& dim : spec.dims) {
      Field d = e[dim];
      if (!d.present() || !d.value().is_number_integer())
        d.fail(d.present() ? "expected a positive integer, " + d.got() : "required field is missing; expected a positive integer");
      int64_t v = d.integer();
      if (v <= 0) d.fail(fmt::format("expected a positive integer, got {}", v));
      s.dims[dim] = v;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

model::Tolerance default_tolerance(DType dtype) {
  if (dtype == DType::fp32) return model::Tolerance{1e-5, 1e-5};
  return model::Tolerance{1e-2, 1e-2};
}

model::ErrorFactor default_error_factor(DType dtype) {
  if (dtype == DType::fp32) return model::ErrorFactor{16, 32};
  return model::ErrorFactor{1.25, 3};
}

std::vector<std::string> expression_names(const TaskSpec& spec) {
  std::vector<std::string> names = concat(spec.dims, spec.flags);
  for (const auto& a : spec.axes) names.push_back(a.name);
  for (const auto& a : spec.axes)
    for (const auto& v : a.strings)
      if (!contains(names, "'" + v + "'")) names.push_back("'" + v + "'");
  return names;
}

namespace {

// ako.task/1 had the CPU reference chosen by "op" and roles input / weight / output; reading
// it as version 2 would fail field by field, so one message says how to convert.
[[noreturn]] void refuse_version_1(const Field& schema) {
  schema.fail(fmt::format(
      "expected \"{}\", got \"ako.task/1\". Convert: set \"schema\" to \"{}\"; in \"buffers\", role "
      "\"input\" and \"weight\" become \"in\", \"output\" becomes \"out\", and \"present_if\" may stay a flag "
      "name; remove \"op\" and add an \"oracle\" kernel (the fp64 ground truth the reference is checked against, "
      "e.g. input/<task>/oracle.cuh). tasks/README.md, \"Converting from ako.task/1\", has the rmsnorm diff",
      kTaskSchema, kTaskSchema));
}

}  // namespace

TaskSpec parse_task(const nlohmann::json& doc, const std::filesystem::path& file, const std::filesystem::path& root) {
  const std::string file_name = file.string();
  Field top(&doc, "", &file_name);
  TaskSpec spec;
  spec.file = file;
  spec.root = root;

  std::string schema = top["schema"].string();
  if (schema == "ako.task/1") refuse_version_1(top["schema"]);
  if (schema != kTaskSchema) top["schema"].fail(fmt::format("expected \"{}\", got \"{}\"", kTaskSchema, schema));
  top.only_keys({"schema", "name", "description", "dims", "dtypes", "flags", "axes", "trials", "tolerance", "error_factor", "buffers",
                 "scalars", "reference", "oracle", "solution", "baselines", "shapes", "check_shapes", "port", "when"});
  spec.name = top["name"].non_empty_string();
  if (top["description"].present()) spec.description = top["description"].string();

  std::vector<std::string> taken;
  spec.dims = identifier_list(top["dims"], taken, "dim", true);
  spec.dtypes = parse_dtypes(top["dtypes"]);
  spec.flags = identifier_list(top["flags"], taken, "flag", false);
  spec.axes = parse_axes(top["axes"], taken);
  if (top["trials"].present()) {
    int64_t trials = top["trials"].integer();
    if (trials < 1 || trials > 1000) top["trials"].fail(fmt::format("expected an integer from 1 to 1000, got {}", trials));
    spec.trials = static_cast<int>(trials);
  }
  spec.tolerance = parse_tolerance(top["tolerance"], spec.dtypes);
  spec.error_factor = parse_error_factor(top["error_factor"], spec.dtypes);
  if (top["when"].present()) {
    spec.when = top["when"].non_empty_string();
    const auto known = expression_names(spec);
    check_expression(top["when"], spec.when, known,
                     "a boolean expression over " + join_names(identifiers_only(known)));
  }

  spec.buffers = parse_buffers(top["buffers"], spec);
  spec.scalars = parse_scalars(top["scalars"], spec, expression_names(spec));
  spec.reference = parse_kernel(top["reference"], spec, KernelRole::reference);
  spec.oracle = parse_kernel(top["oracle"], spec, KernelRole::oracle);
  spec.solution = parse_kernel(top["solution"], spec, KernelRole::solution);
  spec.baselines = parse_baselines(top["baselines"], spec);

  std::set<std::string> shape_names;
  spec.shapes = parse_shapes(top["shapes"], spec, shape_names, true);
  spec.check_shapes = parse_shapes(top["check_shapes"], spec, shape_names, false);

  if (top["port"].present()) {
    top["port"].require_object();
    spec.port = top["port"].value();
  }
  load_device_configs(spec);
  return spec;
}

}  // namespace ako::task
