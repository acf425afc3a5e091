#pragma once
// The two documents `ako report` writes from ReportData: report.html (one self-contained page:
// inline SVG and CSS, no script, nothing fetched when opened) and report.md (the tables, ready
// to paste into a pull request in the SGLang PR format: micro-benchmark table, speedup over the
// engine, ncu pair).
#include <optional>
#include <string>

#include "report/report_data.hpp"

namespace ako::report {

std::string render_html(const ReportData& d);
std::string render_markdown(const ReportData& d);

// The model-level section (`ako validate` results), empty when none was given (model_level.cpp).
std::string model_level_markdown(const ReportData& d);
std::string model_level_html(const ReportData& d);

// Shared by both: a number or "-" (fmt spec such as "{:.2f}").
std::string num_or_dash(const std::optional<double>& v, const char* spec = "{:.2f}");

// The ncu rows both documents show: metric name, before, after (text, "-" when absent).
struct NcuRow {
  std::string metric, before, after;
};
std::vector<NcuRow> ncu_rows(const NcuPair& pair);

}  // namespace ako::report
