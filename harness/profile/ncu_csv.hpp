#pragma once
// Nsight Compute's `--csv --page raw` output: row 1 the metric names, row 2 their units, then
// one row per profiled kernel. ncu mixes in `==PROF==`/`==WARNING==` lines and writes numbers
// with thousands separators ("1,056"); both are handled here.
#include <map>
#include <string>
#include <vector>

#include "profile/ncu_summary.hpp"

namespace ako::profile {

struct NcuRawTable {
  std::vector<std::string> names, units;
  std::vector<std::map<std::string, std::string>> rows;  // metric name -> value as printed
};

// Splits one CSV record ("a","b,c","") into fields; doubled quotes inside a field are one quote.
std::vector<std::string> split_csv_record(const std::string& line);

// Throws ako::Error when there is no header, or the header has no "Kernel Name" column.
NcuRawTable parse_ncu_raw_csv(const std::string& text);

// The numbers of `--section SpeedOfLight Occupancy LaunchStats MemoryWorkloadAnalysis
// WarpStateStats` for the first kernel row (metric names: ../shared/research/cuda_tech.md §5).
// Throws ako::Error when the table has no kernel row.
NcuSummary summarize_ncu(const NcuRawTable& table);

}  // namespace ako::profile
