#include "profile/ncu_summary.hpp"

#include "common/json_optional.hpp"

namespace ako::profile {

nlohmann::json to_json(const NcuSummary& s) {
  return {{"kernel", s.kernel},
          {"duration_us", opt(s.duration_us)},
          {"dram_throughput_pct", opt(s.dram_throughput_pct)},
          {"memory_throughput_pct", opt(s.memory_throughput_pct)},
          {"sm_throughput_pct", opt(s.sm_throughput_pct)},
          {"achieved_occupancy", opt(s.achieved_occupancy_pct)},
          {"theoretical_occupancy_pct", opt(s.theoretical_occupancy_pct)},
          {"registers_per_thread", opt(s.registers_per_thread)},
          {"local_spills", opt(s.local_spill_requests)},
          {"spill_metric", s.spill_metric},
          {"dominant_stall", s.dominant_stall},
          {"dominant_stall_cycles", opt(s.dominant_stall_cycles)}};
}

NcuSummary ncu_summary_from_json(const nlohmann::json& j) {
  NcuSummary s;
  s.kernel = j.value("kernel", "");
  s.duration_us = read_opt<double>(j, "duration_us");
  s.dram_throughput_pct = read_opt<double>(j, "dram_throughput_pct");
  s.memory_throughput_pct = read_opt<double>(j, "memory_throughput_pct");
  s.sm_throughput_pct = read_opt<double>(j, "sm_throughput_pct");
  s.achieved_occupancy_pct = read_opt<double>(j, "achieved_occupancy");
  s.theoretical_occupancy_pct = read_opt<double>(j, "theoretical_occupancy_pct");
  s.registers_per_thread = read_opt<int>(j, "registers_per_thread");
  s.local_spill_requests = read_opt<double>(j, "local_spills");
  s.spill_metric = j.value("spill_metric", "");
  s.dominant_stall = j.value("dominant_stall", "");
  s.dominant_stall_cycles = read_opt<double>(j, "dominant_stall_cycles");
  return s;
}

}  // namespace ako::profile
