#include "cli/commands/report_command.hpp"

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "pipeline/workspace.hpp"
#include "report/report.hpp"

namespace ako::cli {

namespace {

// The command as the user would type it again (shown on the page and in report.md).
std::string command_line(const ReportOptions& o) {
  std::string s = "ako report " + o.task;
  if (!o.run.empty()) s += " --run " + o.run.string();
  if (!o.tune.empty()) s += " --tune " + o.tune.string();
  if (!o.out.empty()) s += " --out " + o.out.string();
  for (const auto& v : o.validate) s += " --validate " + v.string();
  return s;
}

}  // namespace

int report_command(const ReportOptions& opt) {
  report::ReportRequest req;
  req.root = pipeline::find_workspace(opt.root);
  req.task = opt.task;
  req.run_file = opt.run;
  req.tune_db = opt.tune;
  req.validate_files = opt.validate;
  req.command = command_line(opt);
  const std::filesystem::path out = opt.out.empty() ? req.root / "report" / opt.task : opt.out;
  fmt::print("ako report {}: workspace {}\n", opt.task, req.root.string());
  std::fflush(stdout);
  const report::ReportOutcome o = report::write_report(req, out, [](const std::string& line) {
    fmt::print("  {}\n", line);
    std::fflush(stdout);
  });
  for (const auto& m : o.missing) fmt::print("missing: {}: {} (make it with: {})\n", m.what, m.file, m.how);
  fmt::print("REPORT: {} ({} figures{})\n", o.html.string(), o.figures,
             o.missing.empty() ? std::string()
                                : fmt::format(", {} input{} missing", o.missing.size(), o.missing.size() == 1 ? "" : "s"));
  return kExitOk;
}

}  // namespace ako::cli
