#include "cli/commands/tune_static.hpp"

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "search/tuning_db.hpp"
#include "verify/static/static_check.hpp"

namespace ako::cli {

std::vector<StaticFinding> check_variant(const jit::CompiledModule& module, const std::string& display_name,
                                         const std::vector<std::string>& allow) {
  verify::StaticCheckInput in;
  in.file = display_name;
  in.ptx = read_file(module.ptx);
  in.resources = module.resources;
  for (const auto& [expr, lowered] : module.lowered) in.display_names[lowered] = expr;
  in.allow.insert(allow.begin(), allow.end());
  return verify::check_program(in);
}

std::string static_refusal(const std::vector<StaticFinding>& findings) {
  const StaticFinding* first = nullptr;
  int refused = 0;
  for (const auto& f : findings)
    if (!f.allowed) {
      if (!first) first = &f;
      ++refused;
    }
  if (!first) return {};
  return fmt::format("{}{} {}: {}{}", search::kStaticCheckReason, first->check, first->kernel, first->what,
                     refused > 1 ? fmt::format(" (and {} more findings)", refused - 1) : "");
}

}  // namespace ako::cli
