#pragma once
// `ako port`: ship the task's solution into the engine. Checks the engine repository (clean
// worktree but for ako's own earlier output; not detached; a non-default branch, else it
// creates ako/<task>-<date>), refuses when the engine's copy of the mirrored kernel changed since
// `ako mirror` (showing the lines) or when a file it would write is not ako's, renders the kernel
// file and the Python wrapper in the engine's conventions, and writes them, the updated
// provenance and the PR artifact. A dry run computes the same and writes nothing.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace ako::port {

struct PortOptions {
  std::filesystem::path workspace;
  std::filesystem::path engine;
  std::string task;                 // empty: the only task with a provenance record
  std::string profile;              // empty: the one recorded at mirror time
  std::string kernel;               // engine-relative target; empty: task / profile default
  std::string branch;               // empty: ako/<task>-<YYYYMMDD> when on the default branch
  std::string date;                 // YYYYMMDD for the branch name; empty: today (UTC)
  std::filesystem::path result_file;// for the PR artifact when there is no trajectory
  std::vector<std::string> devices; // bake only these devices' configs (and default.json); empty: every one
  bool dry_run = false;
};

struct PlannedFile {
  std::string path;                 // engine-relative
  std::string role;                 // "kernel" or "wrapper"
  std::optional<std::string> before;// current content; nullopt: new file
  std::string after;
  bool changes() const { return !before || *before != after; }
};

struct PortResult {
  std::string task;
  std::string profile;
  std::vector<PlannedFile> files;
  std::string diff;                 // unified diff of every change
  bool unchanged = false;           // the engine already holds exactly this port
  std::string branch;               // the branch the files are (or would be) on
  bool branch_created = false;      // created now (false in a dry run)
  bool branch_needed = false;       // on the default branch: a port branch is (or would be) made
  std::string engine_commit;
  std::filesystem::path pr_file;    // workspace path of the PR artifact (empty in a dry run)
  std::vector<std::string> pr_missing;
  std::string device_section;       // the ported device code on its own (NVRTC-compilable)
  std::vector<std::string> baked;   // one line per baked config: "NVIDIA H100 80GB HBM3: <file> (...)"
};

// Refused for a reason the user fixes in the engine or the workspace (exit 1): each names the
// problem, the paths or lines, and the fix.
struct PortRefusal : std::runtime_error {
  PortRefusal(std::string problem, std::string message, std::vector<std::string> details, std::string fix)
      : std::runtime_error(message), problem(std::move(problem)), details(std::move(details)), fix(std::move(fix)) {}
  std::string problem;              // "dirty-engine", "drift", "not-ako-file", "detached-head", "mirrored-path"
  std::vector<std::string> details; // paths, or diff lines
  std::string fix;
};

PortResult port_solution(const PortOptions& opt);

// The task to port when opt.task is empty: the only mirrored one; when none is, the only task
// of the workspace (port then says how to mirror it from `engine`). Throws ako::Error otherwise.
std::string task_to_port(const std::filesystem::path& workspace, const std::filesystem::path& engine);

}  // namespace ako::port
