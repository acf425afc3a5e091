// The ncu before/after rows and number formatting shared by report.html and report.md.
#include <fmt/format.h>

#include "report/render.hpp"

namespace ako::report {

std::string num_or_dash(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::vector<NcuRow> ncu_rows(const NcuPair& pair) {
  using profile::NcuSummary;
  const NcuSummary* b = pair.before ? &pair.before->summary : nullptr;
  const NcuSummary* a = pair.after ? &pair.after->summary : nullptr;
  auto number = [](const NcuSummary* s, std::optional<double> NcuSummary::*field, const char* spec) {
    return s ? num_or_dash(s->*field, spec) : std::string("-");
  };
  auto text = [](const NcuSummary* s, const std::string& v) { return s && !v.empty() ? v : std::string("-"); };
  std::vector<NcuRow> rows;
  rows.push_back({"case", pair.before ? pair.before->case_label : "-", pair.after ? pair.after->case_label : "-"});
  rows.push_back({"kernel", text(b, b ? b->kernel : ""), text(a, a ? a->kernel : "")});
  rows.push_back({"duration (µs)", number(b, &NcuSummary::duration_us, "{:.2f}"), number(a, &NcuSummary::duration_us, "{:.2f}")});
  rows.push_back({"DRAM throughput (% of peak)", number(b, &NcuSummary::dram_throughput_pct, "{:.1f}"),
                  number(a, &NcuSummary::dram_throughput_pct, "{:.1f}")});
  rows.push_back({"memory throughput (% of peak)", number(b, &NcuSummary::memory_throughput_pct, "{:.1f}"),
                  number(a, &NcuSummary::memory_throughput_pct, "{:.1f}")});
  rows.push_back({"SM throughput (% of peak)", number(b, &NcuSummary::sm_throughput_pct, "{:.1f}"),
                  number(a, &NcuSummary::sm_throughput_pct, "{:.1f}")});
  rows.push_back({"achieved occupancy (%)", number(b, &NcuSummary::achieved_occupancy_pct, "{:.1f}"),
                  number(a, &NcuSummary::achieved_occupancy_pct, "{:.1f}")});
  rows.push_back({"theoretical occupancy (%)", number(b, &NcuSummary::theoretical_occupancy_pct, "{:.1f}"),
                  number(a, &NcuSummary::theoretical_occupancy_pct, "{:.1f}")});
  auto regs = [](const NcuSummary* s) {
    return s && s->registers_per_thread ? std::to_string(*s->registers_per_thread) : std::string("-");
  };
  rows.push_back({"registers per thread", regs(b), regs(a)});
  rows.push_back({"local spilling requests", number(b, &NcuSummary::local_spill_requests, "{:.0f}"),
                  number(a, &NcuSummary::local_spill_requests, "{:.0f}")});
  auto stall = [](const NcuSummary* s) {
    if (!s || s->dominant_stall.empty()) return std::string("-");
    return s->dominant_stall_cycles ? fmt::format("{} ({:.2f} cycles/instr)", s->dominant_stall, *s->dominant_stall_cycles)
                                    : s->dominant_stall;
  };
  rows.push_back({"dominant stall", stall(b), stall(a)});
  return rows;
}

}  // namespace ako::report
