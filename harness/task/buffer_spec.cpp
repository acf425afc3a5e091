// The "axes", "tolerance" and "buffers" of a task spec (tasks/README.md, "Axes" and "Buffers"):
// typed variant axes, and buffers with a role (in / out / inout), a dtype (fixed, the case's,
// or chosen by an axis), a shape, an optional view into another buffer, an init generator and
// per-buffer tolerances. Everything an expression names is checked here, at load time.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "task/spec_checks.hpp"
#include "task/spec_parse.hpp"

namespace ako::task {
namespace {

const std::vector<std::string> kDtypeNames = {"bf16", "fp16", "fp32", "i32", "i64"};

double non_negative(const Field& f, double fallback) {
  if (!f.present()) return fallback;
  double v = f.number();
  if (!(v >= 0) || !std::isfinite(v)) f.fail("expected a finite number >= 0, " + f.got());
  return v;
}

double factor_at_least_1(const Field& f, double fallback) {
  if (!f.present()) return fallback;
  double v = f.number();
  if (!(v >= 1) || !std::isfinite(v))
    f.fail("expected a finite factor >= 1 (the multiple of the reference's error the candidate may reach), " + f.got());
  return v;
}

bool plain_value(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

model::Axis parse_axis(const Field& e, std::vector<std::string>& taken) {
  e.only_keys({"name", "values"});
  model::Axis axis;
  axis.name = declared_name(e["name"], taken, "axis");
  taken.push_back(axis.name);
  Field values = e["values"];
  values.require_array();
  if (values.value().empty()) values.fail("expected a non-empty array of values (all strings or all integers)");
  axis.kind = values.value().front().is_string() ? model::AxisKind::string : model::AxisKind::integer;
  for (const Field& v : values.elements()) {
    if (axis.kind == model::AxisKind::string) {
      if (!v.value().is_string()) v.fail("expected a string like the axis's first value, " + v.got());
      std::string s = v.string();
      if (!plain_value(s))
        v.fail(fmt::format("expected a value of letters, digits and '_' (it is spelled in kernel names and labels), got \"{}\"", s));
      if (contains(axis.strings, s)) v.fail(fmt::format("expected each value once, got \"{}\" again", s));
      axis.strings.push_back(s);
    } else {
      if (!v.value().is_number_integer()) v.fail("expected an integer like the axis's first value, " + v.got());
      int64_t x = v.integer();
      if (std::count(axis.integers.begin(), axis.integers.end(), x)) v.fail(fmt::format("expected each value once, got {} again", x));
      axis.integers.push_back(x);
    }
  }
  return axis;
}

model::Role parse_role(const Field& f) {
  std::string s = f.string();
  if (s == "in") return model::Role::in;
  if (s == "out") return model::Role::out;
  if (s == "inout") return model::Role::inout;
  if (s == "input" || s == "weight" || s == "output")
    f.fail(fmt::format("expected one of in, out, inout, got \"{}\" (ako.task/1's roles: input and weight are now "
                       "\"in\", output is \"out\")",
                       s));
  f.fail(fmt::format("expected one of in, out, inout, got \"{}\"", s));
}

bool integer_dtype_name(const std::string& v) { return parse_dtype(v) && dtype_is_integer(*parse_dtype(v)); }

// "$dtype", a dtype name, or "$<axis>" naming a string axis whose values are floating dtype names
// or "same", or all integer dtype names (i32 / i64: RoPE's positions come as either).
std::string parse_buffer_dtype(const Field& f, const TaskSpec& spec) {
  if (!f.present()) return "$dtype";
  std::string d = f.string();
  if (d == "$dtype" || parse_dtype(d)) return d;
  if (d.size() > 1 && d[0] == '$') {
    auto axis = std::find_if(spec.axes.begin(), spec.axes.end(), [&](const model::Axis& a) { return a.name == d.substr(1); });
    if (axis == spec.axes.end() || axis->kind != model::AxisKind::string)
      f.fail(fmt::format("expected \"$dtype\", a dtype ({}) or \"$<string axis>\"; no string axis is named \"{}\"",
                         join_names(kDtypeNames), d.substr(1)));
    const bool integers = integer_dtype_name(axis->strings.front());
    for (const auto& v : axis->strings) {
      const bool fits = integers ? integer_dtype_name(v) : v == "same" || (parse_dtype(v) && !integer_dtype_name(v));
      if (!fits)
        f.fail(fmt::format("axis \"{}\" chooses this buffer's dtype, so its values must be bf16, fp16, fp32 or same, "
                           "or all of them i32 or i64; it has \"{}\"",
                           axis->name, v));
    }
    return d;
  }
  f.fail(fmt::format("expected \"$dtype\", a dtype ({}) or \"$<string axis>\", got \"{}\"", join_names(kDtypeNames), d));
}

InitSpec parse_init(const Field& f, bool integer, const std::vector<std::string>& known) {
  InitSpec init;
  if (integer && !f.present())
    f.fail("required for an integer buffer: {\"dist\": \"range\", \"low\": <expression>, \"high\": <expression>}");
  if (!f.present()) return init;
  f.require_object();
  init.dist = f["dist"].present() ? f["dist"].string() : (integer ? "range" : "normal");
  if (integer != (init.dist == "range"))
    f["dist"].fail(integer ? fmt::format("expected \"range\" for an integer buffer, got \"{}\"", init.dist)
                           : "expected normal or uniform for a floating buffer (range is for i32 / i64)");
  if (init.dist == "range") {
    f.only_keys({"dist", "low", "high"});
    init.low = f["low"].expression();
    init.high = f["high"].expression();
    check_expression(f["low"], init.low, known, "an integer expression over " + join_names(identifiers_only(known)));
    check_expression(f["high"], init.high, known, "an integer expression over " + join_names(identifiers_only(known)));
  } else if (init.dist == "normal") {
    f.only_keys({"dist", "mean", "std"});
    init.a = f["mean"].present() ? f["mean"].number() : 0.0;
    init.b = non_negative(f["std"], 1.0);
  } else if (init.dist == "uniform") {
    f.only_keys({"dist", "low", "high"});
    init.a = f["low"].present() ? f["low"].number() : 0.0;
    init.b = f["high"].present() ? f["high"].number() : 1.0;
    if (!(init.a < init.b)) f["high"].fail(fmt::format("expected high > low ({}), got {}", init.a, init.b));
  } else {
    f["dist"].fail(fmt::format("expected one of normal, uniform, range, got \"{}\"", init.dist));
  }
  return init;
}

ViewSpec parse_view(const Field& f, const std::vector<BufferSpec>& earlier, size_t rank,
                    const std::vector<std::string>& known) {
  f.require_object();
  f.only_keys({"of", "offset", "strides"});
  ViewSpec v;
  v.of = f["of"].non_empty_string();
  auto storage = std::find_if(earlier.begin(), earlier.end(), [&](const BufferSpec& b) { return b.name == v.of; });
  if (storage == earlier.end() || storage->view)
    f["of"].fail(fmt::format("expected the name of a buffer declared before this one that is not itself a view, got \"{}\"", v.of));
  if (f["offset"].present()) {
    v.offset = f["offset"].expression();
    check_expression(f["offset"], v.offset, known, "an integer expression over " + join_names(identifiers_only(known)));
  }
  Field strides = f["strides"];
  strides.require_array();
  if (strides.value().size() != rank)
    strides.fail(fmt::format("expected one stride (in elements) per shape extent, {}, got {}", rank, strides.value().size()));
  for (const Field& s : strides.elements()) {
    v.strides.push_back(s.expression());
    check_expression(s, v.strides.back(), known, "an integer expression over " + join_names(identifiers_only(known)));
  }
  return v;
}

}  // namespace

bool buffer_dtype_is_integer(const std::string& dtype, const TaskSpec& spec) {
  if (dtype.size() > 1 && dtype[0] == '$' && dtype != "$dtype") {
    auto axis = std::find_if(spec.axes.begin(), spec.axes.end(), [&](const model::Axis& a) { return a.name == dtype.substr(1); });
    return axis != spec.axes.end() && !axis->strings.empty() && integer_dtype_name(axis->strings.front());
  }
  return integer_dtype_name(dtype);
}

std::map<DType, model::Tolerance> parse_tolerance(const Field& f, const std::vector<DType>& fill_in) {
  std::map<DType, model::Tolerance> out;
  if (f.present()) {
    for (const auto& [key, entry] : f.members()) {
      auto t = parse_dtype(key);
      if (!t || dtype_is_integer(*t))
        entry.fail(fmt::format("unknown dtype; expected keys among bf16, fp16, fp32 (integers compare exactly), got \"{}\"", key));
      entry.only_keys({"atol", "rtol"});
      model::Tolerance d = default_tolerance(*t);
      out[*t] = model::Tolerance{non_negative(entry["atol"], d.atol), non_negative(entry["rtol"], d.rtol)};
    }
  }
  for (DType t : fill_in)
    if (!out.count(t)) out[t] = default_tolerance(t);
  return out;
}

std::map<DType, model::ErrorFactor> parse_error_factor(const Field& f, const std::vector<DType>& fill_in) {
  std::map<DType, model::ErrorFactor> out;
  if (f.present()) {
    for (const auto& [key, entry] : f.members()) {
      auto t = parse_dtype(key);
      if (!t || dtype_is_integer(*t))
        entry.fail(fmt::format("unknown dtype; expected keys among bf16, fp16, fp32 (integers compare exactly), got \"{}\"", key));
      entry.only_keys({"rms", "max"});
      const model::ErrorFactor d = default_error_factor(*t);
      out[*t] = model::ErrorFactor{factor_at_least_1(entry["rms"], d.rms), factor_at_least_1(entry["max"], d.max)};
    }
  }
  for (DType t : fill_in)
    if (!out.count(t)) out[t] = default_error_factor(t);
  return out;
}

std::vector<model::Axis> parse_axes(const Field& f, std::vector<std::string>& taken) {
  std::vector<model::Axis> out;
  if (!f.present()) return out;
  f.require_array();
  for (const Field& e : f.elements()) out.push_back(parse_axis(e, taken));
  return out;
}

std::vector<BufferSpec> parse_buffers(const Field& f, const TaskSpec& spec) {
  f.require_array();
  if (f.value().empty()) f.fail("expected a non-empty array of buffers");
  const std::vector<std::string> known = expression_names(spec);
  std::vector<BufferSpec> out;
  for (const Field& e : f.elements()) {
    e.only_keys({"name", "role", "dtype", "shape", "present_if", "init", "tolerance", "error_factor", "view"});
    BufferSpec b;
    b.name = e["name"].non_empty_string();
    if (!is_identifier(b.name)) e["name"].fail(fmt::format("expected an identifier (it names a kernel argument), got \"{}\"", b.name));
    for (const auto& other : out)
      if (other.name == b.name) e["name"].fail(fmt::format("expected a unique buffer name, got \"{}\" again", b.name));
    b.role = parse_role(e["role"]);
    b.dtype = parse_buffer_dtype(e["dtype"], spec);
    Field shape = e["shape"];
    shape.require_array();
    if (shape.value().empty()) shape.fail("expected a non-empty array of extent expressions over the dims");
    for (const Field& extent : shape.elements()) {
      b.shape.push_back(extent.expression());
      check_expression(extent, b.shape.back(), known, "an integer expression over " + join_names(identifiers_only(known)));
    }
    if (e["present_if"].present()) {
      b.present_if = e["present_if"].non_empty_string();
      check_expression(e["present_if"], b.present_if, known, "a boolean expression over " + join_names(identifiers_only(known)));
    }
    if (e["view"].present()) {
      b.view = parse_view(e["view"], out, b.shape.size(), known);
      if (e["init"].present()) e["init"].fail("a view has no init of its own: its storage's init fills it");
      if (e["dtype"].present()) e["dtype"].fail("a view has its storage's dtype; leave dtype out");
    }
    const bool integer = buffer_dtype_is_integer(b.dtype, spec);
    if (b.role == model::Role::out && e["init"].present())
      e["init"].fail("an out buffer is poisoned before every launch, never filled: leave init out (inout buffers are filled)");
    if (!b.view && b.role != model::Role::out) b.init = parse_init(e["init"], integer, known);
    if (e["tolerance"].present()) {
      if (b.role == model::Role::in) e["tolerance"].fail("a tolerance applies to what is compared: role out or inout");
      if (integer) e["tolerance"].fail("integer buffers are compared exactly; leave tolerance out");
      b.tolerance = parse_tolerance(e["tolerance"], {});
    }
    if (e["error_factor"].present()) {
      if (b.role == model::Role::in) e["error_factor"].fail("an error factor applies to what is compared: role out or inout");
      if (integer) e["error_factor"].fail("integer buffers are compared exactly; leave error_factor out");
      b.error_factor = parse_error_factor(e["error_factor"], {});
    }
    out.push_back(std::move(b));
  }
  for (const BufferSpec& b : out) {
    if (!b.view || !model::role_writes(b.role)) continue;
    const BufferSpec& storage = *std::find_if(out.begin(), out.end(), [&](const BufferSpec& s) { return s.name == b.view->of; });
    if (storage.role != model::Role::inout)
      f.fail(fmt::format("buffer \"{}\" is a writable view of \"{}\", so \"{}\" must have role inout (its contents are "
                         "what the kernels start from and what must stay unchanged outside the views)",
                         b.name, storage.name, storage.name));
  }
  if (std::none_of(out.begin(), out.end(), [](const BufferSpec& b) { return model::role_writes(b.role); }))
    f.fail("expected at least one buffer with role \"out\" or \"inout\" (the result that is compared)");
  return out;
}

}  // namespace ako::task
