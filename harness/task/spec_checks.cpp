#include "task/spec_checks.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/expr.hpp"

namespace ako::task {

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void check_expression(const Field& f, const std::string& expr, const std::vector<std::string>& known,
                      std::string_view what) {
  std::set<std::string> used;
  try {
    used = expr_identifiers(expr);
  } catch (const Error& e) {
    f.fail(fmt::format("expected {}; {}", what, e.what()));
  }
  for (const auto& name : used) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    f.fail(fmt::format("expected {}; expression \"{}\" uses unknown identifier '{}' (known: {})", what, expr,
                       name, known.empty() ? std::string("none") : join_names(known)));
  }
}

}  // namespace ako::task
