#include "task/name_expression.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::task {
namespace {

// Walks the template once, handing literal text and placeholder names to the callbacks.
template <class Literal, class Placeholder>
void scan(std::string_view templ, Literal&& literal, Placeholder&& placeholder) {
  size_t at = 0;
  while (at < templ.size()) {
    size_t open = templ.find_first_of("{}", at);
    if (open == std::string_view::npos) {
      literal(templ.substr(at));
      return;
    }
    if (templ[open] == '}')
      throw Error(fmt::format("kernel name \"{}\": '}}' without '{{' at column {}", templ, open + 1));
    literal(templ.substr(at, open - at));
    size_t close = templ.find_first_of("{}", open + 1);
    if (close == std::string_view::npos || templ[close] == '{')
      throw Error(fmt::format("kernel name \"{}\": unterminated '{{' at column {}", templ, open + 1));
    if (close == open + 1)
      throw Error(fmt::format("kernel name \"{}\": empty placeholder '{{}}' at column {}", templ, open + 1));
    placeholder(std::string(templ.substr(open + 1, close - open - 1)));
    at = close + 1;
  }
}

}  // namespace

std::vector<std::string> name_placeholders(std::string_view templ) {
  std::vector<std::string> names;
  scan(templ, [](std::string_view) {}, [&](std::string name) { names.push_back(std::move(name)); });
  return names;
}

std::string expand_name_expression(std::string_view templ, const std::map<std::string, std::string>& values) {
  std::string out;
  scan(
      templ, [&](std::string_view text) { out += text; },
      [&](const std::string& name) {
        auto it = values.find(name);
        if (it == values.end()) {
          std::string known;
          for (const auto& [k, v] : values) known += (known.empty() ? "" : ", ") + k;
          throw Error(fmt::format("kernel name \"{}\": unknown placeholder {{{}}}; known: {}", templ, name, known));
        }
        out += it->second;
      });
  return out;
}

}  // namespace ako::task
