#pragma once
// `ako report <task>`: collect the recorded data (collect.hpp), draw and lay it out
// (render.hpp), and write report.html and report.md into the output folder.
#include <filesystem>
#include <string>
#include <vector>

#include "report/collect.hpp"

namespace ako::report {

struct ReportOutcome {
  std::filesystem::path html, markdown;
  size_t html_bytes = 0, figures = 0;
  std::vector<MissingInput> missing;
};

// Creates `out_dir` when needed; each file is written atomically. Throws ako::Error (a
// missing or unreadable input named on the command line, an unknown task, no run result).
ReportOutcome write_report(const ReportRequest& request, const std::filesystem::path& out_dir, const Say& say);

}  // namespace ako::report
