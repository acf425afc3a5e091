#pragma once
// The hygiene report as text: the facts, then each finding with its paths or commits and its
// fix, then one machine-readable line `HYGIENE: clean` / `HYGIENE: refused (...)`.
// Shared by `ako doctor` and, later, the refusals of `ako iterate` and `ako port`.
#include <string>

#include "git/hygiene_report.hpp"

namespace ako::cli {

std::string render_hygiene_facts(const git::HygieneFacts& facts);
std::string render_hygiene_findings(const git::HygieneReport& report);
std::string hygiene_summary_line(const git::HygieneReport& report);

}  // namespace ako::cli
