#include "port/cpp_expr.hpp"

#include <algorithm>
#include <cctype>

namespace ako::port {

std::string rename_identifiers(const std::string& expr, const std::function<std::string(const std::string&)>& rename) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    const unsigned char c = static_cast<unsigned char>(expr[i]);
    if (std::isalpha(c) || c == '_') {
      size_t j = i + 1;
      while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) || expr[j] == '_')) ++j;
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

std::string expr_helpers_cpp() {
  return "// The task spec's expression functions (tasks/README.md), on int64_t as there.\n"
         "constexpr int64_t ako_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
         "constexpr int64_t ako_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
         "constexpr int64_t ako_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
         "constexpr int64_t ako_pow2(int64_t a) { return a > 0 && (a & (a - 1)) == 0 ? 1 : 0; }\n";
}

std::string host_expression(const task::TaskSpec& spec, const std::string& expr) {
  auto has = [](const std::vector<std::string>& v, const std::string& n) { return std::count(v.begin(), v.end(), n) > 0; };
  return rename_identifiers(expr, [&](const std::string& id) -> std::string {
    if (has(spec.dims, id)) return "dim_" + id;
    if (has(spec.flags, id)) return "flag_" + id;
    if (id == "ceil_div" || id == "min" || id == "max" || id == "pow2") return "ako_" + id;
    return id;
  });
}

}  // namespace ako::port
