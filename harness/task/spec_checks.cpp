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

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> identifiers_only(const std::vector<std::string>& known) {
  std::vector<std::string> out;
  for (const auto& k : known)
    if (k.empty() || k[0] != '\'') out.push_back(k);
  return out;
}

void check_expression(const Field& f, const std::string& expr, const std::vector<std::string>& known,
                      std::string_view what) {
  std::set<std::string> used, strings;
  try {
    used = expr_identifiers(expr);
    strings = expr_strings(expr);
  } catch (const Error& e) {
    f.fail(fmt::format("expected {}; {}", what, e.what()));
  }
  for (const auto& s : strings) {
    if (std::find(known.begin(), known.end(), "'" + s + "'") != known.end()) continue;
    std::vector<std::string> values;
    for (const auto& k : known)
      if (!k.empty() && k[0] == '\'') values.push_back(k);
    f.fail(fmt::format("expected {}; expression \"{}\" compares with '{}', which is no axis's value (values: {})", what,
                       expr, s, values.empty() ? std::string("no string axis declared") : join_names(values)));
  }
  for (const auto& name : used) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    f.fail(fmt::format("expected {}; expression \"{}\" uses unknown identifier '{}' (known: {})", what, expr,
                       name, known.empty() ? std::string("none") : join_names(identifiers_only(known))));
  }
}

}  // namespace ako::task
