// The model-level section of both documents: each `ako validate` result given with --validate,
// as the same rows `ako validate` prints (harness/validate/validate_table.hpp): the step per
// backend and mode, the family verdicts with their reasons, the sites the ako backend left to
// the engine, the failures.
#include <fmt/format.h>

#include "report/render.hpp"
#include "report/svg.hpp"
#include "validate/validate_table.hpp"

namespace ako::report {

namespace {

std::string md_cell(std::string s) {
  for (size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  return s;
}

std::string md_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string s = "|", rule = "|";
  for (size_t i = 0; i < header.size(); ++i) {
    s += " " + md_cell(header[i]) + " |";
    rule += i ? " ---: |" : " --- |";
  }
  s += "\n" + rule + "\n";
  for (const auto& r : rows) {
    s += "|";
    for (const auto& c : r) s += " " + md_cell(c) + " |";
    s += "\n";
  }
  return s;
}

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table><tr>";
  for (const auto& h : header) s += "<th>" + xml_escape(h) + "</th>";
  s += "</tr>\n";
  for (const auto& r : rows) {
    s += "<tr>";
    for (size_t i = 0; i < r.size(); ++i) s += (i ? "<td class=\"n\">" : "<td>") + xml_escape(r[i]) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

std::vector<std::vector<std::string>> left_to_engine(const validate::ValidateResult& v) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : v.ako_sites)
    if (s.impl != "ako") rows.push_back({s.site, s.family, std::to_string(s.calls), s.impl});
  return rows;
}

}  // namespace

std::string model_level_markdown(const ReportData& d) {
  if (d.models.empty()) return "";
  std::string s = "\n## Model-level validation (`ako validate`)\n";
  for (const auto& [file, v] : d.models) {
    s += fmt::format("\n### {}: {}\n\n{} (`{}`)\n\n", v.model, v.verdict == "fail" ? "FAIL" : v.verdict,
                     validate::headline(v), file);
    s += md_table(validate::step_header(v), validate::step_rows(v));
    if (!v.families.empty()) s += "\n" + md_table(validate::family_header(v), validate::family_rows(v));
    for (const auto& f : v.families)
      if (!f.reason.empty()) s += fmt::format("- {}: {}\n", f.family, md_cell(f.reason));
    const auto left = left_to_engine(v);
    if (!left.empty()) s += "\nSites where the ako backend ran the engine's kernel:\n\n" + md_table({"site", "family", "calls", "ran"}, left);
    for (const auto& f : v.failures) s += "- **failed**: " + md_cell(f) + "\n";
  }
  return s;
}

std::string model_level_html(const ReportData& d) {
  if (d.models.empty()) return "";
  std::string s = "<section id=\"models\"><h2>Model-level validation (ako validate)</h2>\n";
  for (const auto& [file, v] : d.models) {
    s += fmt::format("<h3>{}: {}</h3>\n<p>{} (<code>{}</code>)</p>\n", xml_escape(v.model),
                     v.verdict == "fail" ? "FAIL" : xml_escape(v.verdict), xml_escape(validate::headline(v)), xml_escape(file));
    s += html_table(validate::step_header(v), validate::step_rows(v));
    if (!v.families.empty()) s += html_table(validate::family_header(v), validate::family_rows(v));
    s += "<ul>\n";
    for (const auto& f : v.families)
      if (!f.reason.empty()) s += fmt::format("<li><b>{}</b>: {}</li>\n", xml_escape(f.family), xml_escape(f.reason));
    for (const auto& f : v.failures) s += "<li><b>failed</b>: " + xml_escape(f) + "</li>\n";
    s += "</ul>\n";
    const auto left = left_to_engine(v);
    if (!left.empty())
      s += "<p>Sites where the ako backend ran the engine's kernel:</p>\n" + html_table({"site", "family", "calls", "ran"}, left);
  }
  return s + "</section>\n";
}

}  // namespace ako::report
