#pragma once
// `ako port --to ../engine [--task T] [--dry-run] [--result FILE]` (harness/port/port.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands/mirror_command.hpp"

namespace ako::cli {

struct PortCommandOptions {
  std::filesystem::path root;     // workspace; empty: found upward from here
  std::filesystem::path to;       // the engine checkout
  std::string task;               // empty: the only mirrored task
  std::string profile;            // empty: the one recorded by mirror
  std::string kernel;             // engine-relative target .cuh
  std::string branch;             // port branch name when on the default branch
  std::filesystem::path result;   // ako run --json output for the PR artifact
  bool dry_run = false;
  std::vector<std::string> devices; // --device: bake only these devices' configs (default.json always)
};

// 0 ported (or nothing to do, or a dry run); 1 refused (dirty engine, drift, a file ako did not
// write, detached HEAD), each with the paths or lines and the fix; 2 usage, spec or environment error.
int port_command(const PortCommandOptions& opt);

// Registers `ako mirror` and `ako port` on the app; dispatch() runs whichever was parsed.
class PortCli {
 public:
  explicit PortCli(CLI::App& app);
  std::optional<int> dispatch() const;

 private:
  MirrorCommandOptions mirror_;
  PortCommandOptions port_;
  CLI::App* mirror_cmd_ = nullptr;
  CLI::App* port_cmd_ = nullptr;
};

}  // namespace ako::cli
