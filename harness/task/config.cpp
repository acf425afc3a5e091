// parse_config: the solution's tuned config (schema ako.config/1, format in tasks/README.md),
// checked against the spec it belongs to so that a stale or hand-edited config is caught at
// load time, not in the middle of a run.
#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
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

  std::vector<std::string> when_names = spec.dims;
  when_names.insert(when_names.end(), spec.flags.begin(), spec.flags.end());
  std::vector<std::string> param_names;
  for (const auto& p : spec.solution.params) param_names.push_back(p.name);

  std::vector<ConfigClass> out;
  Field classes = top["classes"];
  classes.require_array();
  for (const Field& c : classes.elements()) {
    c.only_keys({"name", "when", "params"});
    ConfigClass cls;
    cls.name = c["name"].non_empty_string();
    for (const auto& other : out)
      if (other.name == cls.name) c["name"].fail(fmt::format("expected a unique class name, got \"{}\" again", cls.name));
    if (c["when"].present()) {
      cls.when = c["when"].non_empty_string();
      check_expression(c["when"], cls.when, when_names, "a boolean expression over the dims and flags");
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
    // Missing params fall back to the first allowed value, as for a case no class matches.
    for (const auto& p : spec.solution.params) cls.params.emplace(p.name, p.values.front());
    out.push_back(std::move(cls));
  }
  return out;
}

}  // namespace ako::task
