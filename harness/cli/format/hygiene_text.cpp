#include "cli/format/hygiene_text.hpp"

#include <fmt/format.h>

namespace ako::cli {

namespace {
std::string short_hex(const std::string& hex) { return hex.substr(0, 7); }
}  // namespace

std::string render_hygiene_facts(const git::HygieneFacts& f) {
  std::string s;
  s += fmt::format("  repository      {}\n", f.repository);
  s += fmt::format("  upstream        {} ({}{})\n", f.upstream_url, f.upstream_url_source,
                   f.upstream_created ? "; remote 'upstream' created now" : "");
  s += fmt::format("  default branch  {} ({}: {})\n", f.default_branch, git::to_string(f.default_branch_source),
                   f.default_branch_origin);
  s += fmt::format("  start point     upstream/{} at {}\n", f.default_branch, short_hex(f.start_point));
  const std::string where = f.head_branch.empty() ? "detached" : f.head_branch;
  s += fmt::format("  HEAD            {} at {}\n", where, f.head_oid.empty() ? "(no commits)" : short_hex(f.head_oid));
  if (f.fast_forwarded_from)
    s += fmt::format("  fast-forwarded  {} from {} to {}\n", f.head_branch, short_hex(*f.fast_forwarded_from),
                     short_hex(f.head_oid));
  if (!f.iteration_commits.empty()) {
    s += fmt::format("  iteration commits on {} ({}):\n", f.head_branch, f.iteration_commits.size());
    for (const auto& c : f.iteration_commits) s += "      " + c + "\n";
  }
  return s;
}

std::string render_hygiene_findings(const git::HygieneReport& r) {
  std::string s;
  for (const auto& f : r.findings) {
    s += fmt::format("  [{}] {}\n", git::to_string(f.problem), f.message);
    for (const auto& item : f.items) s += "      " + item + "\n";
    s += "    fix: " + f.fix + "\n";
  }
  return s;
}

std::string hygiene_summary_line(const git::HygieneReport& r) {
  if (r.clean()) return "HYGIENE: clean";
  std::string kinds;
  for (const auto& f : r.findings) kinds += (kinds.empty() ? "" : ", ") + git::to_string(f.problem);
  return fmt::format("HYGIENE: refused ({} problem{}: {})", r.findings.size(), r.findings.size() == 1 ? "" : "s",
                     kinds);
}

}  // namespace ako::cli
