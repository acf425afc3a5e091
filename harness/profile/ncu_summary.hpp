#pragma once
// What `ako iterate --ncu` keeps from one Nsight Compute profile: the few numbers that say
// why a memory-bound kernel is where it is. Plain values, serialised to the iteration's ncu.json
// (keys: harness/iterate/TRAJECTORY.md; `ako port` reads them for its before/after table).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ako::profile {

struct NcuSummary {
  std::string kernel;                        // the profiled kernel's name as ncu printed it
  std::optional<double> duration_us;         // gpu__time_duration.sum (ncu's replay, clocks unlocked)
  std::optional<double> dram_throughput_pct; // DRAM throughput, % of peak sustained
  std::optional<double> memory_throughput_pct;
  std::optional<double> sm_throughput_pct;
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
  std::optional<int> registers_per_thread;
  std::optional<double> local_spill_requests;  // local-memory spilling requests (0 is the goal)
  std::string spill_metric;                    // which metric supplied it
  std::string dominant_stall;                  // e.g. "long_scoreboard"
  std::optional<double> dominant_stall_cycles; // warp cycles per issued instruction in that state
};

nlohmann::json to_json(const NcuSummary& s);
NcuSummary ncu_summary_from_json(const nlohmann::json& j);

}  // namespace ako::profile
