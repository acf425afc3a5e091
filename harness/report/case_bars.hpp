#pragma once
// From a run result (schema ako.run/1) to the per-case bars (% of copy bandwidth, faceted by
// dtype and variant) and the micro-benchmark table with the speedup over each baseline.
#include "report/report_data.hpp"

namespace ako::report {

// "affine", "noweight", "layout=bc mod_dtype=fp32": the case key without shape and dtype
// ("all" when the task has no variant axes).
std::string variant_label(const CaseResult& c);

// Only compare cases; facets in dtype order of first appearance, then variant; groups in
// shape order of first appearance.
CaseBars case_bars(const RunResult& run);

BenchTable bench_table(const RunResult& run);

}  // namespace ako::report
