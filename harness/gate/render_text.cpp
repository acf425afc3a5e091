// Terminal table and markdown share one layout: per task and baseline entry (device) the
// coverage (ran / skipped, why), then the timing comparisons, then every check that did not
// simply pass. Skipped checks with the same reason are folded into one line so a --shapes
// filter does not flood the log.
#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "gate/render.hpp"

namespace ako::gate {

namespace {

// A section of the report: one task compared with one baseline entry (a device).
struct Section {
  std::string task, entry;
  bool operator==(const Section&) const = default;
  bool holds(const Check& c) const { return c.task == task && c.entry == entry; }
  bool holds(const Coverage& c) const { return c.task == task && c.entry == entry; }
  // "rmsnorm" or "rmsnorm (NVIDIA H100 80GB HBM3)"
  std::string title() const { return entry.empty() ? task : task + " (" + entry + ")"; }
};

std::vector<Section> sections_of(const GateReport& r) {
  std::vector<Section> out;
  auto add = [&](const Section& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& c : r.coverage) add({c.task, c.entry});
  for (const auto& c : r.checks) add({c.task, c.entry});
  return out;
}

std::string change_text(const Check& c) { return fmt::format("{:+.1f}%", c.change_pct); }

// Skipped checks grouped by (kind, reason): "3 x not selected by --shapes/--dtypes: a, b, c".
std::map<std::pair<CheckKind, std::string>, std::vector<std::string>> folded_skips(const GateReport& r,
                                                                                   const Section& section) {
  std::map<std::pair<CheckKind, std::string>, std::vector<std::string>> g;
  for (const auto& c : r.checks)
    if (section.holds(c) && c.status == CheckStatus::skipped) g[{c.kind, c.detail}].push_back(c.subject);
  return g;
}

std::string subjects_text(const std::vector<std::string>& s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 3; ++i) out += (i ? ", " : "") + s[i];
  if (s.size() > 3) out += fmt::format(", ... ({} more)", s.size() - 3);
  return out;
}

// Findings: everything that did not simply pass (skipped ones are folded separately).
bool listed(const Check& c) { return c.status != CheckStatus::pass && c.status != CheckStatus::skipped; }

}  // namespace

std::string verdict_line(const GateReport& r) {
  const int warn = r.count(CheckStatus::warn);
  return fmt::format("GATE: {} ({} failed, {} improved, {} warning{}, {} passed, {} skipped)\n",
                     r.passed() ? "PASS" : "FAIL", r.count(CheckStatus::fail), r.count(CheckStatus::improved), warn,
                     warn == 1 ? "" : "s", r.count(CheckStatus::pass), r.count(CheckStatus::skipped));
}

std::string render_table(const GateReport& r) {
  std::string s = fmt::format("ako gate: baseline {}\nmode: {}\n", r.baseline_file, r.mode);
  for (const auto& n : r.notes) s += "note: " + n + "\n";
  for (const auto& section : sections_of(r)) {
    s += section.entry.empty() ? fmt::format("\ntask {}\n", section.task)
                               : fmt::format("\ntask {}, baseline entry {}\n", section.task, section.entry);
    for (const auto& c : r.coverage)
      if (section.holds(c))
        s += fmt::format("  {:<12} {:<8} {}\n", kind_name(c.kind), c.ran ? "ran" : "SKIPPED", c.why);
    bool header = false;
    for (const auto& c : r.checks) {
      if (!section.holds(c) || c.kind != CheckKind::timing || c.status == CheckStatus::skipped) continue;
      if (!header) {
        s += fmt::format("\n  {:<34} {:>10} {:>10} {:>8} {:>8}  {}\n", "case", "base us", "now us", "change",
                         "noise", "status");
        header = true;
      }
      s += fmt::format("  {:<34} {:>10.2f} {:>10.2f} {:>8} {:>7}%  {}\n", c.subject, c.base_us, c.new_us,
                       change_text(c), fmt::format("±{:.1f}", c.noise_pct), status_name(c.status));
    }
    bool other = false;
    for (const auto& c : r.checks) {
      if (!section.holds(c) || !listed(c)) continue;
      if (!other) s += "\n";
      other = true;
      s += fmt::format("  {:<8} {:<11} {}: {}\n", status_name(c.status), kind_name(c.kind), c.subject, c.detail);
    }
    for (const auto& [key, subjects] : folded_skips(r, section))
      s += fmt::format("  {:<8} {:<11} {} x {}: {}\n", "skipped", kind_name(key.first), subjects.size(), key.second,
                       subjects_text(subjects));
  }
  s += "\n" + verdict_line(r);
  return s;
}

std::string render_markdown(const GateReport& r) {
  std::string s = fmt::format("## ako gate: {}\n\n", r.passed() ? "PASS" : "FAIL");
  s += fmt::format("Baseline `{}`. {}\n\n", r.baseline_file, r.mode);
  for (const auto& n : r.notes) s += "> **Note:** " + n + "\n\n";
  s += "| task | check | ran | why / what |\n| --- | --- | --- | --- |\n";
  for (const auto& c : r.coverage)
    s += fmt::format("| {} | {} | {} | {} |\n", Section{c.task, c.entry}.title(), kind_name(c.kind),
                     c.ran ? "ran" : "**skipped**", c.why);
  bool header = false;
  for (const auto& c : r.checks) {
    if (c.kind != CheckKind::timing || c.status == CheckStatus::skipped) continue;
    if (!header) {
      s += "\n### Timing (solution IQM)\n\n| task | case | base µs | now µs | change | noise | status |\n"
           "| --- | --- | ---: | ---: | ---: | ---: | --- |\n";
      header = true;
    }
    s += fmt::format("| {} | {} | {:.2f} | {:.2f} | {} | ±{:.1f}% | {} |\n", Section{c.task, c.entry}.title(), c.subject,
                     c.base_us, c.new_us, change_text(c), c.noise_pct, status_name(c.status));
  }
  bool other = false;
  for (const auto& c : r.checks) {
    if (!listed(c)) continue;
    if (!other) s += "\n### Findings\n\n| status | task | check | subject | detail |\n| --- | --- | --- | --- | --- |\n";
    other = true;
    s += fmt::format("| {} | {} | {} | `{}` | {} |\n", status_name(c.status), Section{c.task, c.entry}.title(),
                     kind_name(c.kind), c.subject, c.detail);
  }
  bool skips = false;
  for (const auto& section : sections_of(r))
    for (const auto& [key, subjects] : folded_skips(r, section)) {
      if (!skips) s += "\n### Skipped\n\n| task | check | count | why | which |\n| --- | --- | ---: | --- | --- |\n";
      skips = true;
      s += fmt::format("| {} | {} | {} | {} | {} |\n", section.title(), kind_name(key.first), subjects.size(),
                       key.second, subjects_text(subjects));
    }
  s += "\n`" + verdict_line(r).substr(0, verdict_line(r).size() - 1) + "`\n";
  return s;
}

}  // namespace ako::gate
