#pragma once
// `ako doctor`: the AKO preflight on the workspace repository (harness/git/), printed.
#include <filesystem>
#include <string>

namespace ako::cli {

struct DoctorOptions {
  std::filesystem::path root;  // the repository or a folder in it; empty: the current directory
  std::string upstream_url;    // for creating a missing upstream remote
  std::string default_branch;  // overrides ako.defaultBranch and upstream/HEAD
  bool fast_forward = false;   // --ff: fast-forward when merely behind
};

// 0 clean; 1 refused (hygiene problems, each printed with its fix); 2 usage or environment
// error (not a git repository, fetch failed, no such upstream branch).
int doctor_command(const DoctorOptions& opt);

}  // namespace ako::cli
