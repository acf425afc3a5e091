#pragma once
// The PR artifact `ako port` writes beside the solution (solution/<task>/PR.md): what was
// ported where, the tuned classes, the per-shape micro-benchmark table (reference vs solution),
// ncu before (baseline) and after (best) for the hottest shape, and the iteration summary.
// Sources: trajectory/<task>/ (written by `ako iterate`), else an `ako run --json` result.
// Whatever is missing is said plainly in the artifact, never silently left out.
#include <filesystem>
#include <string>
#include <vector>

#include "task/spec.hpp"

namespace ako::port {

struct PrInputs {
  std::filesystem::path workspace;
  std::filesystem::path result_file;     // --result: an ako.run/1 JSON; empty: the trajectory's best
  std::string engine_profile;
  std::string engine_commit;             // engine HEAD the port sits on
  std::string mirrored_from;             // "path @ commit", or empty
  std::vector<std::string> files;        // engine-relative files written
  std::vector<std::string> jit_flags;
  std::vector<task::DeviceConfig> baked;  // the config files baked into the kernel file
};

struct PrArtifact {
  std::string markdown;
  std::vector<std::string> missing;      // what could not be included, and why
};

PrArtifact render_pr_artifact(const task::TaskSpec& spec, const PrInputs& in);

}  // namespace ako::port
