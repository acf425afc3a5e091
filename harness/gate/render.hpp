#pragma once
// The gate report for people (a compact table on the terminal, markdown for a CI summary) and
// for scripts (JSON, schema ako.gate/1). Every task lists each kind of check as ran or skipped
// with the reason; the last line is "GATE: PASS" or "GATE: FAIL" with the counts.
#include <string>

#include <nlohmann/json.hpp>

#include "gate/report.hpp"

namespace ako::gate {

inline constexpr const char* kGateReportSchema = "ako.gate/1";

std::string render_table(const GateReport& r);
std::string render_markdown(const GateReport& r);
nlohmann::json report_json(const GateReport& r);

// "GATE: PASS (0 failed, 2 improved, 1 warning, 40 passed, 3 skipped)"
std::string verdict_line(const GateReport& r);

}  // namespace ako::gate
