#pragma once
// `ako report <task> [--run FILE] [--tune DB] [--out DIR]`: report.html and report.md from the
// recorded run, trajectory, ncu profiles and tuning database (harness/report/).
#include <filesystem>
#include <string>
#include <vector>

namespace ako::cli {

struct ReportOptions {
  std::string task;
  std::filesystem::path root;     // workspace; empty: found upward from here
  std::filesystem::path run;      // --run: an ako.run/1 JSON; empty: the trajectory's best iteration
  std::filesystem::path tune;     // --tune: a tuning database; empty: bench/tuning/<task>.jsonl if present
  std::filesystem::path out;      // --out; empty: <root>/report/<task>
  std::vector<std::filesystem::path> validate;  // --validate: `ako validate --json` results (model-level section)
};

// 0 written (whatever optional input was missing is listed); 2 usage or input error (unknown
// task, no run result, a file named by --run or --tune that is missing or malformed).
int report_command(const ReportOptions& opt);

}  // namespace ako::cli
