#pragma once
// The generated sections of an ITERATIONS.md entry: Bench (per-case table, mean and min~max)
// and ncu, from recorded results.
#include <string>
#include <vector>

#include "iterate/status.hpp"
#include "profile/ncu_summary.hpp"
#include "result/run_result.hpp"

namespace ako::iterate {

struct BenchContext {
  const RunResult* baseline = nullptr;  // null for the baseline itself
  const RunResult* best = nullptr;      // the best iteration before this one
  int best_iter = 0;
  std::vector<std::string> notes;       // extra lines (compile errors, a fatal worker error)
};

// Markdown: a line of totals and comparisons, the per-case table, reference-check counts.
std::string bench_markdown(const RunResult& now, const BenchContext& context);

// "1.339x" / "3755.14 us", or "-" when the run has no correct timed case.
std::string speedup_cell(const RunResult& r);
std::string runtime_cell(const RunResult& r);

// The ncu section from a profile: the case, the numbers, and where the report lies.
std::string ncu_markdown(const profile::NcuSummary& s, const std::string& case_label, const std::string& report);

// One line of the same for the commit body.
std::string ncu_line(const profile::NcuSummary& s, const std::string& case_label);

// "40 correct, 0 incorrect, 0 failed, 0 skipped" over the compare cases.
std::string case_counts(const RunResult& r);

}  // namespace ako::iterate
