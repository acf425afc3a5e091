#include "gate/render.hpp"

namespace ako::gate {

nlohmann::json report_json(const GateReport& r) {
  nlohmann::json j;
  j["schema"] = kGateReportSchema;
  j["passed"] = r.passed();
  j["baseline"] = r.baseline_file;
  j["mode"] = r.mode;
  j["notes"] = r.notes;
  j["counts"] = {{"fail", r.count(CheckStatus::fail)},       {"improved", r.count(CheckStatus::improved)},
                 {"warn", r.count(CheckStatus::warn)},       {"pass", r.count(CheckStatus::pass)},
                 {"skipped", r.count(CheckStatus::skipped)}};
  j["coverage"] = nlohmann::json::array();
  for (const auto& c : r.coverage)
    j["coverage"].push_back(
        {{"task", c.task}, {"entry", c.entry}, {"check", kind_name(c.kind)}, {"ran", c.ran}, {"why", c.why}});
  j["checks"] = nlohmann::json::array();
  for (const auto& c : r.checks) {
    nlohmann::json cj = {{"task", c.task},
                         {"entry", c.entry},
                         {"check", kind_name(c.kind)},
                         {"subject", c.subject},
                         {"status", c.status == CheckStatus::fail ? "fail" : status_name(c.status)},
                         {"detail", c.detail}};
    if (c.kind == CheckKind::timing && c.status != CheckStatus::skipped)
      cj["timing"] = {{"base_us", c.base_us},
                      {"now_us", c.new_us},
                      {"change_pct", c.change_pct},
                      {"noise_pct", c.noise_pct},
                      {"threshold_pct", c.threshold_pct}};
    j["checks"].push_back(cj);
  }
  return j;
}

}  // namespace ako::gate
