#pragma once
// `ako mirror`: bring the engine's current kernel into the workspace and record where it came
// from (a kernel in Python is recorded only: is_python_kernel below). The engine file is kept verbatim (what drift checks diff against), its device part is
// written in a form NVRTC compiles (host glue and host-only includes taken out, the host glue
// described) against the engine's own device headers plus the profile's NVRTC overlays, and
// solution/<task>/provenance.json records the engine commit, path and content hash, and those
// of every engine header the device part reaches.
#include <filesystem>
#include <string>
#include <vector>

#include "port/engine_profile.hpp"
#include "port/provenance.hpp"

namespace ako::port {

struct MirrorOptions {
  std::filesystem::path workspace;  // the ako repository (tasks/, input/, solution/, engines/)
  std::filesystem::path engine;     // the engine checkout
  std::string task;
  std::string profile;              // empty: the task's port.engine, else "sglang"
  std::string path;                 // engine-relative kernel; empty: the task's port.mirror
  bool compile_check = true;        // NVRTC-compile the device part
  std::string arch = "sm_90a";
  std::filesystem::path cuda_home;  // empty: as the JIT resolves it
};

struct MirrorResult {
  Provenance provenance;
  EngineProfile profile;
  SplitCuh split;
  std::vector<std::string> written;  // workspace-relative
  bool compiled = false;             // NVRTC accepted the device part (false when not checked)
  bool compile_checked = false;
  std::string compile_log;           // NVRTC's errors when it did not
  bool python_kernel = false;        // the engine's kernel is Python: recorded only (is_python_kernel)
};

// An engine kernel written in Python (a Triton or CuTe DSL kernel, e.g. SGLang's LayerNorm
// norm_infer): ako can neither compile nor run it, so mirror only records it (verbatim copy under
// input/<task>/engine/, commit, hash) for port's drift check and the PR's "measured against"
// line; no device part, no host glue, no NVRTC check. The task times it from Python.
bool is_python_kernel(const std::string& engine_path);

// Throws ako::Error (exit 2) for what stops it: no such task, profile or engine file, an engine
// file with uncommitted changes (its provenance would name a commit that does not hold it).
MirrorResult mirror_kernel(const MirrorOptions& opt);

// The profile a task ports with: explicit, else the task's port.engine, else "sglang".
std::string profile_name_for(const std::string& explicit_name, const std::string& task_port_engine);

}  // namespace ako::port
