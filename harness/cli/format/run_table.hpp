#pragma once
// The human output of `ako run`: the per-shape table and the machine-readable summary lines
// (COMPILED:, CORRECT:, RUNTIME:, REF_RUNTIME:, SPEEDUP:, BASELINE <name>:, SIZE COPY:) that scripts and agents grep.
#include <string>

#include "cli/format/style.hpp"
#include "result/run_result.hpp"

namespace ako::cli {

std::string format_device_line(const DeviceInfo& d);
std::string format_run_table(const RunResult& r, const Style& style);
std::string format_reference_checks(const RunResult& r, const Style& style);
std::string format_summary_lines(const RunResult& r);
// "BASELINE <name>: solution 1.234x faster (geomean over N cases, min, max)" per baseline, over
// the cases where the solution is correct and the baseline was timed (part of the summary lines).
std::string format_baseline_lines(const RunResult& r);
// `ako run --size-copy`: "SIZE COPY: solution at 93.1% of a copy of its own bytes (geomean over
// N cases, min, max)" over the correct cases with a timed copy; empty without any.
std::string format_size_copy_line(const RunResult& r);
std::string format_failures(const RunResult& r, const Style& style);
std::string format_builds(const RunResult& r);

}  // namespace ako::cli
