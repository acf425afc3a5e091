#pragma once
// Reads what `ako report` shows: the run result (--run, else the trajectory's best iteration),
// trajectory/<task>/ (summary, each iteration's result.json and ncu.json), the tuning database
// (--tune, else bench/tuning/<task>.jsonl), and turns them into ReportData. An input named on
// the command line that cannot be read is an error (ako::Error, naming the file and how to make
// it); an optional one that is absent becomes a MissingInput, shown on the page.
#include <filesystem>
#include <functional>
#include <string>

#include "report/report_data.hpp"

namespace ako::report {

struct ReportRequest {
  std::filesystem::path root;      // the workspace (tasks/, trajectory/, bench/)
  std::string task;
  std::filesystem::path run_file;  // empty: trajectory/<task>/iter-<best>/result.json
  std::filesystem::path tune_db;   // empty: bench/tuning/<task>.jsonl when it exists
  std::string command;             // the command line, shown on the page
  std::vector<std::filesystem::path> validate_files;  // `ako validate --json` results to show
};

using Say = std::function<void(const std::string&)>;  // one progress line

ReportData collect_report_data(const ReportRequest& request, const Say& say);

}  // namespace ako::report
