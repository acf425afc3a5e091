#pragma once
// `ako mirror --from ../engine --task rmsnorm`: the engine's kernel into input/<task>/engine/,
// its provenance into solution/<task>/provenance.json (harness/port/mirror.hpp).
#include <filesystem>
#include <string>

namespace ako::cli {

struct MirrorCommandOptions {
  std::filesystem::path root;     // workspace; empty: found upward from here
  std::filesystem::path from;     // the engine checkout
  std::string task;
  std::string profile;            // --engine-profile
  std::string path;               // --path: engine-relative kernel
  std::string arch = "sm_90a";
  bool no_compile = false;
};

// 0 mirrored and the device part compiles with NVRTC; 1 mirrored, but NVRTC rejects the device
// part (named, with the fix); 2 usage, spec or environment error.
int mirror_command(const MirrorCommandOptions& opt);

}  // namespace ako::cli
