#include "port/cpp_expr.hpp"

#include <algorithm>
#include <cctype>

#include "common/error.hpp"
#include "port/port_names.hpp"

namespace ako::port {

namespace {

bool has(const std::vector<std::string>& v, const std::string& n) { return std::count(v.begin(), v.end(), n) > 0; }

bool is_axis(const task::TaskSpec& spec, const std::string& n) {
  return std::any_of(spec.axes.begin(), spec.axes.end(), [&](const model::Axis& a) { return a.name == n; });
}

bool is_function(const std::string& id) {
  return id == "ceil_div" || id == "min" || id == "max" || id == "gcd" || id == "pow2";
}

size_t identifier_end(const std::string& s, size_t i) {
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  return i;
}

// One token of python_expression: an identifier (renamed or refused) or an operator.
std::string python_token(const task::TaskSpec& spec, const std::string& expr, size_t& i,
                         const std::function<std::string(const std::string&)>& local, const std::string& what) {
  auto refuse = [&](const std::string& why) -> std::string {
    throw Error(what + ": '" + expr + "' cannot be checked by the ported Python wrapper: " + why +
                " (it handles flags, axes, 'strings', comparisons, arithmetic, &&, || and !, min and max)");
  };
  const char c = expr[i];
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
    const size_t j = identifier_end(expr, i + 1);
    const std::string id = expr.substr(i, j - i);
    i = j;
    if (id == "min" || id == "max") return id;
    if (is_function(id)) return refuse("it calls " + id + "()");
    if (has(spec.dims, id)) return refuse("it uses the dim " + id);
    if (has(spec.flags, id) || is_axis(spec, id)) return local(id);
    return refuse("it names " + id);
  }
  const std::string two = expr.substr(i, 2);
  if (two == "&&" || two == "||") {
    i += 2;
    return two == "&&" ? " and " : " or ";
  }
  if (two == "!=" || two == "==" || two == "<=" || two == ">=") {
    i += 2;
    return two;
  }
  if (c == '!') return ++i, " not ";
  if (c == '/') return ++i, "//";
  if (c == '?' || c == ':') return refuse("it uses ?:");
  return ++i, std::string(1, c);
}

}  // namespace

std::string rename_identifiers(const std::string& expr, const std::function<std::string(const std::string&)>& rename) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    const unsigned char c = static_cast<unsigned char>(expr[i]);
    if (std::isalpha(c) || c == '_') {
      const size_t j = identifier_end(expr, i + 1);
      out += rename(expr.substr(i, j - i));
      i = j;
    } else if (c == '\'') {  // a string axis's value, whole
      const size_t close = expr.find('\'', i + 1);
      const size_t j = close == std::string::npos ? expr.size() : close + 1;
      out += rename(expr.substr(i, j - i));
      i = j;
    } else if (std::isdigit(c)) {  // keep literals whole (no identifier inside 1e6 etc.)
      size_t j = i + 1;
      while (j < expr.size() && std::isalnum(static_cast<unsigned char>(expr[j]))) ++j;
      out.append(expr, i, j - i);
      i = j;
    } else {
      out += expr[i++];
    }
  }
  return out;
}

std::string expr_helpers_cpp(const std::string& code) {
  std::string out =
      "// The task spec's expression functions (tasks/README.md), on int64_t as there.\n"
      "constexpr int64_t ako_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
      "constexpr int64_t ako_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
      "constexpr int64_t ako_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
      "constexpr int64_t ako_pow2(int64_t a) { return a > 0 && (a & (a - 1)) == 0 ? 1 : 0; }\n";
  if (code.find("ako_gcd(") != std::string::npos)
    out += "constexpr int64_t ako_gcd(int64_t a, int64_t b) {\n"
           "  a = a < 0 ? -a : a;\n"
           "  b = b < 0 ? -b : b;\n"
           "  while (b != 0) {\n"
           "    const int64_t r = a % b;\n"
           "    a = b;\n"
           "    b = r;\n"
           "  }\n"
           "  return a;\n"
           "}\n";
  return out;
}

std::string host_expression(const task::TaskSpec& spec, const std::string& expr, const ExprScope& scope) {
  return rename_identifiers(expr, [&](const std::string& id) -> std::string {
    if (id.front() == '\'') return scope.qualifier + "ako_str_" + id.substr(1, id.size() - 2);
    if (has(spec.dims, id)) return "dim_" + id;
    if (has(spec.flags, id)) return scope.template_params ? flag_param(id) : "flag_" + id;
    if (is_axis(spec, id)) return scope.template_params ? flag_param(id) : "axis_" + id;
    if (is_function(id)) return scope.qualifier + "ako_" + id;
    if (id == "dtype") return scope.qualifier + "ako_dtype_code<DType>";  // a config class's `when`
    return id;
  });
}

std::string python_expression(const task::TaskSpec& spec, const std::string& expr,
                              const std::function<std::string(const std::string&)>& local, const std::string& what) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (expr[i] == '\'') {
      const size_t close = expr.find('\'', i + 1);
      const size_t j = close == std::string::npos ? expr.size() : close + 1;
      out.append(expr, i, j - i);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(expr[i]))) {
      const size_t j = identifier_end(expr, i + 1);
      out.append(expr, i, j - i);
      i = j;
    } else {
      out += python_token(spec, expr, i, local, what);
    }
  }
  std::string tidy;  // one space where the operators' padding met the spec's own
  for (char c : out)
    if (c != ' ' || (!tidy.empty() && tidy.back() != ' ' && tidy.back() != '(')) tidy += c;
  while (!tidy.empty() && tidy.back() == ' ') tidy.pop_back();
  return tidy;
}

}  // namespace ako::port
