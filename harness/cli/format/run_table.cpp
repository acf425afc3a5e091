#include "cli/format/run_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <vector>

namespace ako::cli {

namespace {

// dims are stored in a map (sorted by name); print them in the order rows x cols when those
// names exist, since that is how every model table reads.
std::string shape_dims(const CaseResult& c) {
  auto r = c.dims.find("rows"), k = c.dims.find("cols");
  if (r != c.dims.end() && k != c.dims.end() && c.dims.size() == 2)
    return fmt::format("{}x{}", r->second, k->second);
  std::string dims;
  for (const auto& [name, v] : c.dims) dims += (dims.empty() ? "" : " ") + name + "=" + std::to_string(v);
  return dims;
}

std::string flags_text(const CaseResult& c) {
  std::string s;
  for (const auto& [k, v] : c.flags) s += (s.empty() ? "" : ",") + (v ? k : "no" + k);
  for (const auto& [k, v] : c.axes) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

std::string us(const std::optional<TimingStats>& t) {
  return t ? fmt::format("{:.2f}", t->iqm_us) : "-";
}

std::string verdict_text(const CaseResult& c, const Style& st) {
  switch (c.verdict) {
    case Verdict::correct: return st.green("ok");
    case Verdict::incorrect: return st.red("INCORRECT");
    case Verdict::failed: return st.red("FAILED" + (c.fault.empty() ? "" : "(" + c.fault + ")"));
    // A fault here is the reference's or the oracle's (exec/protocol/reference_blame.hpp,
    // oracle_blame.hpp): the case was not judged.
    case Verdict::skipped: return st.yellow("skipped" + (c.fault.empty() ? "" : "(" + c.fault + ")"));
  }
  return "?";
}

// Visible width: escape codes take no columns, UTF-8 continuation bytes none either.
size_t visible_width(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string pad(const std::string& s, size_t width, bool right) {
  const size_t v = visible_width(s);
  const std::string fill(width > v ? width - v : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string render(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<bool>& right) {
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], visible_width(r[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t i = 0; i < cells.size(); ++i) l += (i ? "  " : "") + pad(cells[i], w[i], right[i]);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(head);
  std::vector<std::string> rule;
  for (size_t x : w) rule.push_back(std::string(x, '-'));
  line(rule);
  for (const auto& r : rows) line(r);
  return out;
}

}  // namespace

std::string format_device_line(const DeviceInfo& d) {
  if (d.name.empty()) return "device: none\n";
  return fmt::format("device: {} ({}, {} SMs, L2 {} MiB, driver {}.{}), copy bandwidth {:.0f} GB/s ({})\n",
                     d.name, d.arch, d.sm_count, d.l2_bytes >> 20, d.driver_version / 1000,
                     (d.driver_version % 1000) / 10, d.copy_bandwidth_gbs, d.copy_bandwidth_source);
}

namespace {

// The baselines' names, in the order the cases list them (the spec's).
std::vector<std::string> baseline_names(const RunResult& r) {
  std::vector<std::string> names;
  for (const auto& c : r.cases)
    for (const auto& b : c.baselines)
      if (std::find(names.begin(), names.end(), b.name) == names.end()) names.push_back(b.name);
  return names;
}

// A baseline's three cells: its time, its % of copy bandwidth, and the solution's speedup over
// it; "n/a" where it does not apply, its verdict where it was not correct.
void baseline_cells(const CaseResult& c, const std::string& name, std::vector<std::string>& row, const Style& st) {
  auto it = std::find_if(c.baselines.begin(), c.baselines.end(), [&](const BaselineResult& b) { return b.name == name; });
  if (it == c.baselines.end() || (it->verdict == Verdict::skipped && !it->time)) {
    row.insert(row.end(), {"n/a", "", ""});
  } else if (it->verdict != Verdict::correct) {
    row.insert(row.end(), {st.red(verdict_name(it->verdict)), "", ""});
  } else {
    row.insert(row.end(), {us(it->time), it->pct_copy_bw > 0 ? fmt::format("{:.1f}", it->pct_copy_bw) : "-",
                           it->speedup > 0 ? fmt::format("{:.2f}x", it->speedup) : "-"});
  }
}

// The SM clock while the case was timed (median MHz), "!" when it throttled.
std::string clock_text(const CaseResult& c, const Style& st) {
  if (!c.clock || c.clock->probes == 0) return "-";
  const std::string mhz = fmt::format("{:.0f}", c.clock->median_mhz);
  return c.clock->throttled ? st.red(mhz + "!") : mhz;
}

}  // namespace

std::string format_run_table(const RunResult& r, const Style& st) {
  const std::vector<std::string> baselines = baseline_names(r);
  // `--size-copy`: the copy of each case's own bytes, and the solution's speed against it.
  const bool size_copy = std::any_of(r.cases.begin(), r.cases.end(), [](const CaseResult& c) { return c.size_copy_time.has_value(); });
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r.cases) {
    if (c.kind != "compare") continue;
    const bool timed = c.solution_time.has_value();
    std::vector<std::string> row{c.shape, shape_dims(c), c.dtype, flags_text(c), us(c.reference_time), us(c.solution_time),
                                 timed && c.speedup > 0 ? fmt::format("{:.2f}x", c.speedup) : "-",
                                 timed ? fmt::format("{:.0f}", c.gbps) : "-",
                                 timed && c.pct_copy_bw > 0 ? fmt::format("{:.1f}", c.pct_copy_bw) : "-"};
    if (size_copy)
      row.insert(row.end(), {us(c.size_copy_time), c.pct_size_copy > 0 ? fmt::format("{:.1f}", c.pct_size_copy) : "-"});
    for (const auto& name : baselines) baseline_cells(c, name, row, st);
    row.insert(row.end(), {c.error.checked ? fmt::format("{:.2e}", c.error.max_abs) : "-",
                           c.error.checked ? fmt::format("{:.2e}", c.error.max_rel) : "-", clock_text(c, st),
                           verdict_text(c, st)});
    rows.push_back(std::move(row));
  }
  std::vector<std::string> head{"shape", "rows x cols", "dtype", "variant", "ref us", "sol us", "speedup", "GB/s", "%copy"};
  std::vector<bool> right{false, true, false, false, true, true, true, true, true};
  if (size_copy) {
    head.insert(head.end(), {"copy us", "%size"});
    right.insert(right.end(), {true, true});
  }
  for (const auto& name : baselines) {
    head.insert(head.end(), {name + " us", name + " %copy", "vs " + name});
    right.insert(right.end(), {true, true, true});
  }
  head.insert(head.end(), {"max abs", "max rel", "MHz", "verdict"});
  right.insert(right.end(), {true, true, true, false});
  return render(head, rows, right);
}

std::string format_reference_checks(const RunResult& r, const Style& st) {
  int total = 0, ok = 0;
  std::string bad;
  for (const auto& c : r.cases) {
    if (c.kind != "reference_check") continue;
    ++total;
    if (c.verdict == Verdict::correct) {
      ++ok;
    } else {
      bad += fmt::format("  {} {} {} {}: {} {}\n", c.shape, shape_dims(c), c.dtype, flags_text(c),
                         verdict_text(c, st), c.reason);
    }
  }
  if (total == 0) return "";
  return fmt::format("reference vs fp64 oracle: {}/{} small shapes agree\n{}", ok, total, bad);
}

std::string format_failures(const RunResult& r, const Style& st) {
  std::string out;
  for (const auto& c : r.cases) {
    if (c.kind != "compare" || c.verdict == Verdict::correct) continue;
    out += fmt::format("{} {} {} {}: {} {}\n", c.shape, shape_dims(c), c.dtype, flags_text(c),
                       verdict_text(c, st), c.reason);
  }
  return out;
}

std::string format_builds(const RunResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : r.builds) {
    auto n = [](int v) { return v < 0 ? std::string("?") : std::to_string(v); };
    rows.push_back({b.role, b.name_expression, n(b.resources.registers), n(b.resources.spill_stores),
                    n(b.resources.stack_bytes), n(b.resources.shared_bytes),
                    b.cache_hit ? "hit" : fmt::format("{:.0f} ms", b.compile_ms)});
  }
  return render({"role", "kernel", "regs", "spill B", "stack B", "smem B", "cache"}, rows,
                {false, false, true, true, true, true, false});
}

std::string format_summary_lines(const RunResult& r) {
  const Summary& s = r.summary;
  std::string out;
  out += fmt::format("COMPILED: {}\n", s.compiled ? "yes" : "no");
  const bool all_correct = s.compiled && s.cases > 0 && s.correct == s.cases && s.incorrect == 0 && s.failed == 0;
  // Nothing checked (no GPU) is neither correct nor incorrect.
  const char* word = all_correct ? "yes" : nothing_measured(r) ? "skipped" : "no";
  out += fmt::format("CORRECT: {} ({}/{} cases correct, {} incorrect, {} failed, {} skipped)\n", word, s.correct,
                     s.cases, s.incorrect, s.failed, s.skipped);
  if (s.runtime_us > 0) {
    out += fmt::format("RUNTIME: {:.2f} us (sum of solution IQMs over the correct timed cases)\n", s.runtime_us);
    out += fmt::format("REF_RUNTIME: {:.2f} us\n", s.ref_runtime_us);
    out += fmt::format("SPEEDUP: {:.3f}x (geomean over cases {:.3f}x)\n", s.speedup, s.geomean_speedup);
  } else {
    out += "RUNTIME: n/a\nREF_RUNTIME: n/a\nSPEEDUP: n/a\n";
  }
  out += format_baseline_lines(r);
  out += format_size_copy_line(r);
  return out;
}

std::string format_size_copy_line(const RunResult& r) {
  std::vector<double> pct;
  for (const auto& c : r.cases)
    if (c.verdict == Verdict::correct && c.pct_size_copy > 0) pct.push_back(c.pct_size_copy);
  if (pct.empty()) return "";
  double log_sum = 0;
  for (double x : pct) log_sum += std::log(x);
  return fmt::format("SIZE COPY: solution at {:.1f}% of a copy of its own bytes (geomean over {} cases, min {:.1f}%, "
                     "max {:.1f}%)\n",
                     std::exp(log_sum / static_cast<double>(pct.size())), pct.size(),
                     *std::min_element(pct.begin(), pct.end()), *std::max_element(pct.begin(), pct.end()));
}

std::string format_baseline_lines(const RunResult& r) {
  std::string out;
  for (const auto& name : baseline_names(r)) {
    std::vector<double> speedups;
    int untimed = 0, wrong = 0;   // cases with the baseline where no speedup exists, and why
    for (const auto& c : r.cases)
      for (const auto& b : c.baselines) {
        if (b.name != name) continue;
        if (c.verdict == Verdict::correct && b.speedup > 0) speedups.push_back(b.speedup);
        else if (b.verdict == Verdict::incorrect || b.verdict == Verdict::failed) ++wrong;
        else ++untimed;
      }
    if (speedups.empty()) {
      out += fmt::format("BASELINE {}: n/a ({} cases not timed, {} not correct)\n", name, untimed, wrong);
      continue;
    }
    double log_sum = 0;
    for (double x : speedups) log_sum += std::log(x);
    out += fmt::format("BASELINE {}: solution {:.3f}x faster (geomean over {} cases, min {:.3f}x, max {:.3f}x){}\n",
                       name, std::exp(log_sum / static_cast<double>(speedups.size())), speedups.size(),
                       *std::min_element(speedups.begin(), speedups.end()),
                       *std::max_element(speedups.begin(), speedups.end()),
                       wrong ? fmt::format("; {} cases where it was not correct", wrong) : "");
  }
  return out;
}

}  // namespace ako::cli
