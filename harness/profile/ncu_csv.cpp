#include "profile/ncu_csv.hpp"

#include <cstdlib>
#include <sstream>

#include "common/error.hpp"

namespace ako::profile {

namespace {

// "1,056.5" -> 1056.5; "n/a", "" -> nullopt.
std::optional<double> number(const std::string& printed) {
  std::string s;
  for (char c : printed)
    if (c != ',') s += c;
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::optional<double> first_number(const std::map<std::string, std::string>& row,
                                   std::initializer_list<const char*> names, std::string* which = nullptr) {
  for (const char* n : names) {
    const auto it = row.find(n);
    if (it == row.end()) continue;
    if (const auto v = number(it->second)) {
      if (which) *which = n;
      return v;
    }
  }
  return std::nullopt;
}

// WarpStateStats: warp cycles per issued instruction spent in each state. "selected" is the
// cycle a warp issues, not a stall, so it never counts as the dominant one.
void dominant_stall(const std::map<std::string, std::string>& row, NcuSummary& s) {
  static const std::string prefix = "smsp__average_warps_issue_stalled_", suffix = "_per_issue_active.ratio";
  for (const auto& [name, printed] : row) {
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) continue;
    const std::string reason = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (reason == "selected") continue;
    const auto v = number(printed);
    if (v && (!s.dominant_stall_cycles || *v > *s.dominant_stall_cycles)) {
      s.dominant_stall = reason;
      s.dominant_stall_cycles = v;
    }
  }
}

}  // namespace

std::vector<std::string> split_csv_record(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

NcuRawTable parse_ncu_raw_csv(const std::string& text) {
  NcuRawTable t;
  std::istringstream in(text);
  std::string line;
  std::vector<std::vector<std::string>> records;
  while (std::getline(in, line))
    if (line.starts_with('"')) records.push_back(split_csv_record(line));  // ==PROF== lines are not CSV
  if (records.empty()) throw Error("ncu wrote no CSV table (no line starting with '\"'): did it profile any kernel?");
  t.names = records[0];
  bool has_kernel = false;
  for (const auto& n : t.names) has_kernel |= n == "Kernel Name";
  if (!has_kernel) throw Error("ncu's CSV header has no 'Kernel Name' column: not a --page raw table");
  if (records.size() > 1) t.units = records[1];
  for (size_t r = 2; r < records.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < t.names.size() && i < records[r].size(); ++i) row[t.names[i]] = records[r][i];
    t.rows.push_back(std::move(row));
  }
  return t;
}

NcuSummary summarize_ncu(const NcuRawTable& table) {
  if (table.rows.empty())
    throw Error("ncu's CSV has a header but no kernel row: the kernel filter matched no launch");
  const auto& row = table.rows.front();
  NcuSummary s;
  s.kernel = row.count("Kernel Name") ? row.at("Kernel Name") : "";
  if (const auto d = first_number(row, {"gpu__time_duration.sum"})) {
    // In the unit of the table's second row: ncu picks ns, us or ms by the value's size.
    std::string unit = "ns";
    for (size_t i = 0; i < table.names.size() && i < table.units.size(); ++i)
      if (table.names[i] == "gpu__time_duration.sum") unit = table.units[i];
    const double to_us = unit == "us" || unit == "usecond"   ? 1.0
                         : unit == "ms" || unit == "msecond" ? 1e3
                         : unit == "s" || unit == "second"   ? 1e6
                                                             : 1e-3;   // ns, nsecond
    s.duration_us = *d * to_us;
  }
  s.dram_throughput_pct = first_number(row, {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                             "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"});
  s.memory_throughput_pct = first_number(row, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  s.sm_throughput_pct = first_number(row, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  s.achieved_occupancy_pct = first_number(row, {"sm__warps_active.avg.pct_of_peak_sustained_active"});
  s.theoretical_occupancy_pct = first_number(row, {"sm__maximum_warps_per_active_cycle_pct"});
  if (const auto r = first_number(row, {"launch__registers_per_thread"})) s.registers_per_thread = static_cast<int>(*r);
  s.local_spill_requests = first_number(row,
                                        {"derived__local_spilling_requests", "sass__inst_executed_register_spilling",
                                         "sass__inst_executed_register_spilling_mem_local"},
                                        &s.spill_metric);
  dominant_stall(row, s);
  return s;
}

}  // namespace ako::profile
