#include "cli/commands/port_command.hpp"

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "pipeline/workspace.hpp"
#include "port/port.hpp"

namespace ako::cli {

PortCli::PortCli(CLI::App& app) {
  mirror_cmd_ = app.add_subcommand(
      "mirror",
      "bring the engine's current kernel into input/<task>/engine/ (device part compiled by NVRTC against the\n"
      "engine's own device headers and the profile's overlays, host glue described) and record its provenance\n"
      "(engine commit, path, sha256, and those of the engine headers it reaches) in solution/<task>/provenance.json,\n"
      "which ako port checks before writing into the engine.\n"
      "Exit 0 mirrored and the device part compiles; 1 mirrored but NVRTC rejects it; 2 usage or environment error.");
  mirror_cmd_->add_option("--from", mirror_.from, "the engine checkout (a git repository), e.g. ../sglang")->required();
  mirror_cmd_->add_option("--task", mirror_.task, "the task (a folder under tasks/)")->required();
  mirror_cmd_->add_option("--engine-profile", mirror_.profile, "engines/<NAME>.json or a path (default: the task's port.engine)");
  mirror_cmd_->add_option("--path", mirror_.path, "engine-relative kernel file (default: the task's port.mirror)");
  mirror_cmd_->add_option("--arch", mirror_.arch, "arch for the NVRTC check")->capture_default_str();
  mirror_cmd_->add_flag("--no-compile", mirror_.no_compile, "skip the NVRTC check of the device part");
  mirror_cmd_->add_option("--root", mirror_.root, "workspace root (default: nearest folder with tasks/ upward from here)");

  port_cmd_ = app.add_subcommand(
      "port",
      "write the solution into the engine in its conventions (kernel file with every device's tuned config baked in,\n"
      "chosen at run time by the device's name, default.json for other devices; Python\n"
      "wrapper with a can_use_* guard) on a non-default branch (created as ako/<task>-<date> when on the default),\n"
      "refusing a dirty engine, a mirrored kernel that changed since ako mirror (lines shown) or a file ako did not\n"
      "write; then the PR artifact solution/<task>/PR.md. Exit 0 ported, unchanged or dry run; 1 refused; 2 error.");
  port_cmd_->add_option("--to", port_.to, "the engine checkout, e.g. ../sglang")->required();
  port_cmd_->add_option("--task", port_.task, "the task (default: the only mirrored one)");
  port_cmd_->add_flag("--dry-run", port_.dry_run, "show the diff and the branch; write nothing");
  port_cmd_->add_option("--result", port_.result, "an `ako run --json` result for the PR artifact (when there is no trajectory)");
  port_cmd_->add_option("--engine-profile", port_.profile, "override the profile recorded by ako mirror");
  port_cmd_->add_option("--kernel", port_.kernel, "engine-relative target .cuh (default: the task's port.kernel or the profile's)");
  port_cmd_->add_option("--branch", port_.branch, "name of the branch to create when HEAD is on the default branch");
  port_cmd_->add_option("--device", port_.devices,
                        "bake only this device's config (repeatable; default.json is always baked for other devices);\n"
                        "default: every configs/device_name=*.json, chosen at run time by the device's name");
  port_cmd_->add_option("--root", port_.root, "workspace root (default: nearest folder with tasks/ upward from here)");
}

std::optional<int> PortCli::dispatch() const {
  if (mirror_cmd_->parsed()) return mirror_command(mirror_);
  if (port_cmd_->parsed()) return port_command(port_);
  return std::nullopt;
}

int port_command(const PortCommandOptions& opt) {
  port::PortOptions p;
  p.workspace = pipeline::find_workspace(opt.root);
  p.engine = opt.to;
  p.task = opt.task;
  p.profile = opt.profile;
  p.kernel = opt.kernel;
  p.branch = opt.branch;
  p.result_file = opt.result;
  p.dry_run = opt.dry_run;
  p.devices = opt.devices;
  port::PortResult r;
  try {
    r = port::port_solution(p);
  } catch (const port::PortRefusal& e) {
    fmt::print("ako port: refused ({}): {}\n", e.problem, e.what());
    for (const auto& d : e.details) fmt::print("  {}\n", d);
    fmt::print("fix: {}\nPORT: refused ({})\n", e.fix, e.problem);
    return kExitIncorrect;
  }

  fmt::print("ako port{}: task {} -> {} (profile {}, engine HEAD {})\n", opt.dry_run ? " --dry-run" : "", r.task,
             opt.to.string(), r.profile, r.engine_commit.substr(0, 12));
  for (const auto& f : r.files)
    fmt::print("  {:<7} {} ({})\n", f.role, f.path, !f.changes() ? "unchanged" : f.before ? "updated" : "new");
  for (const auto& b : r.baked) fmt::print("  config  {}\n", b);
  if (r.unchanged) {
    fmt::print("nothing to do: the engine already holds exactly this port\nPORT: unchanged\n");
    return kExitOk;
  }
  if (opt.dry_run) {
    fmt::print("{}", r.diff);
    fmt::print("branch: {}\n", r.branch_needed ? "would create " + r.branch + " (HEAD is on the default branch)"
                                               : "stays on " + r.branch);
    fmt::print("PORT: dry-run (nothing written)\n");
    return kExitOk;
  }
  fmt::print("branch: {}{}\n", r.branch, r.branch_created ? " (created at HEAD)" : "");
  fmt::print("PR artifact: {}\n", r.pr_file.string());
  for (const auto& m : r.pr_missing) fmt::print("  missing: {}\n", m);
  fmt::print("next: review with git -C {} diff, then commit and open the PR\nPORT: ported ({} file(s))\n", opt.to.string(),
             std::count_if(r.files.begin(), r.files.end(), [](const port::PlannedFile& f) { return f.changes(); }));
  return kExitOk;
}

}  // namespace ako::cli
