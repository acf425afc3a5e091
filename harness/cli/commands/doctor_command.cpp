#include "cli/commands/doctor_command.hpp"

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "cli/format/hygiene_text.hpp"
#include "git/hygiene.hpp"

namespace ako::cli {

int doctor_command(const DoctorOptions& opt) {
  git::HygieneOptions h;
  // The workspace is the repository: libgit2 finds it upward from here, tasks/ or not.
  h.root = opt.root.empty() ? std::filesystem::current_path() : opt.root;
  h.upstream_url = opt.upstream_url;
  h.default_branch = opt.default_branch;
  h.fast_forward = opt.fast_forward;
  const git::HygieneReport report = git::check_hygiene(h);  // GitError -> exit 2 in main

  fmt::print("ako doctor\n{}", render_hygiene_facts(report.facts));
  if (!report.clean()) fmt::print("refused:\n{}", render_hygiene_findings(report));
  fmt::print("{}\n", hygiene_summary_line(report));
  return report.clean() ? kExitOk : kExitIncorrect;
}

}  // namespace ako::cli
