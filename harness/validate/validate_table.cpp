#include "validate/validate_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ako::validate {

namespace {

std::string x(double v) { return fmt::format("{:.2f}x", v); }

std::string blocks_text(const ValidateResult& r) {
  std::string s;
  for (size_t i = 0; i < r.blocks_run.size(); ++i) {
    const int real = i < r.blocks_real.size() ? r.blocks_real[i].second : 0;
    s += fmt::format("{}{} {} of {}", i ? ", " : "", r.blocks_run[i].first, r.blocks_run[i].second, real);
  }
  return s;
}

}  // namespace

std::string align(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < w.size(); ++i) w[i] = std::max(w[i], row[i].size());
  };
  widen(header);
  for (const auto& row : rows) widen(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (size_t i = 0; i < row.size() && i < w.size(); ++i)
      s += (i ? "  " : "") + (i == 0 ? fmt::format("{:<{}}", row[i], w[i]) : fmt::format("{:>{}}", row[i], w[i]));
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::vector<std::string> step_header(const ValidateResult&) {
  return {"backend", "mode", "step ms", "family us", "GPU us", "vs engine", "rel L2", "max abs"};
}

std::vector<std::vector<std::string>> step_rows(const ValidateResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : r.backends) {
    if (b.modes.empty()) rows.push_back({b.name, "-", "-", "-", "-", "-", "-", "-"});
    for (const auto& m : b.modes) {
      std::string vs = "-";
      const BackendResult* e = r.backend("engine");
      const ModeTimes* em = e ? e->mode(m.mode) : nullptr;
      if (b.name != "engine" && em && m.step_ms > 0) vs = x(em->step_ms / m.step_ms);
      rows.push_back({b.name, m.mode, fmt::format("{:.3f}", m.step_ms), fmt::format("{:.0f}", m.family_us),
                      fmt::format("{:.0f}", m.total_us), vs, b.rel_l2 ? fmt::format("{:.2e}", *b.rel_l2) : "-",
                      b.max_abs ? fmt::format("{:.3g}", *b.max_abs) : "-"});
    }
  }
  return rows;
}

std::vector<std::string> family_header(const ValidateResult& r) {
  std::vector<std::string> h{"family", "sites", "ported", "micro"};
  for (const char* m : {"eager", "graph"})
    if (std::any_of(r.families.begin(), r.families.end(), [&](const auto& f) { return f.step_speedup.count(m); }))
      h.push_back(std::string("step ") + m);
  h.push_back("verdict");
  return h;
}

std::vector<std::vector<std::string>> family_rows(const ValidateResult& r) {
  const auto header = family_header(r);
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : r.families) {
    std::vector<std::string> row{f.family, std::to_string(f.sites), f.ported ? "yes" : "no",
                                 f.micro_speedup ? x(*f.micro_speedup) : "-"};
    for (size_t i = 4; i + 1 < header.size(); ++i) {
      const auto it = f.step_speedup.find(header[i].substr(5));
      row.push_back(it == f.step_speedup.end() ? "-" : x(it->second));
    }
    row.push_back(f.verdict);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string headline(const ValidateResult& r) {
  std::string s = fmt::format("{} on {}: blocks {} ({}), {} timed steps{}", r.model, r.device, blocks_text(r),
                              r.blocks_note.empty() ? "per step" : r.blocks_note, r.steps,
                              r.graph ? ", eager and CUDA graph" : ", eager");
  if (r.tiny) s += " [tiny dims: a smoke run]";
  if (r.verdict == "smoke") s += " [the torch backend alone, nothing timed: no verdict]";
  return s;
}

std::string format_validate_text(const ValidateResult& r) {
  std::string out = headline(r) + "\n";
  if (!r.note.empty()) out += "  " + r.note + "\n";
  out += "\n" + align(step_header(r), step_rows(r));
  if (!r.step_speedup.empty()) {
    out += "ako step vs engine:";
    for (const auto& [mode, s] : r.step_speedup) out += fmt::format(" {} {}", mode, x(s));
    out += " (as measured; no verdict)\n";
  }
  if (!r.families.empty()) out += "\n" + align(family_header(r), family_rows(r));
  for (const auto& f : r.families)
    if (!f.reason.empty()) out += fmt::format("  {}: {}\n", f.family, f.reason);
  std::vector<std::vector<std::string>> engine;
  for (const auto& s : r.engine_sites) engine.push_back({s.site, s.family, std::to_string(s.calls), s.impl});
  if (!engine.empty()) out += "\nwhat the engine backend ran at each site:\n" + align({"site", "family", "calls", "ran"}, engine);
  std::vector<std::vector<std::string>> left;
  for (const auto& s : r.ako_sites)
    if (s.impl != "ako") left.push_back({s.site, s.family, std::to_string(s.calls), s.impl});
  if (!left.empty()) out += "\nsites where the ako backend ran the engine's kernel:\n" + align({"site", "family", "calls", "ran"}, left);
  if (!r.ako_unavailable.empty()) out += "ako backend unavailable: " + r.ako_unavailable + "\n";
  for (const auto& f : r.failures) out += "FAILED: " + f + "\n";
  out += fmt::format("VALIDATE: {} ({})\n", r.verdict == "fail" ? "FAIL" : r.verdict, r.model);
  return out;
}

}  // namespace ako::validate
