#pragma once
// An engine profile: where an inference engine keeps its kernels and how its host code looks,
// read from engines/<name>.json (schema ako.engine/1). Layouts move (SGLang went from
// python/sglang/jit_kernel to python/sglang/kernels), so they are configuration, not code.
#include <filesystem>
#include <string>
#include <vector>

namespace ako::port {

inline constexpr const char* kEngineSchema = "ako.engine/1";

struct EngineLayout {
  std::string kernel_root;     // engine-relative: load_jit resolves cuda_files against it
  std::string include_root;    // the engine's own headers (sgl_kernel/*.cuh)
  std::string python_root;     // where wrapper_file is resolved
  std::string test_root;
  std::string benchmark_root;
};

struct EngineProfile {
  std::filesystem::path file;  // the profile it came from
  std::string name, description;
  EngineLayout layout;
  // port
  std::string kernel_file;           // under kernel_root, "{op}" replaced, e.g. "diffusion/{op}.cuh"
  std::string wrapper_file;          // under python_root, e.g. "diffusion/{op}.py"
  std::string python_utils_module;   // where cache_once, load_jit and make_cpp_args live
  std::string cpp_namespace;         // empty: global (the JIT's generated exports are there too)
  std::string kernel_struct;         // e.g. "Ako{Op}Kernel"
  std::vector<std::string> includes; // what the generated host glue includes
  std::vector<std::string> jit_flags;// how the engine's JIT compiles (for the record and the PR)
  // mirror
  std::vector<std::string> host_markers;     // a declaration naming one of these is host glue
  std::vector<std::string> host_includes;    // include prefixes that serve only the host glue: dropped
  // NVRTC compiles the device part against the engine's own headers (layout.include_root),
  // after these folders beside the profile: stand-ins for the host-side headers NVRTC lacks
  // (the C++ library, the CUDA host API, tvm-ffi), searched first so they shadow the real ones.
  std::vector<std::string> nvrtc_overlays;
  std::vector<std::string> nvrtc_flags;      // "{sm}" -> the arch's number, e.g. sm_90a -> 900
};

// The profile's nvrtc_flags for `arch` ("sm_90a"), "{sm}" expanded ("-DSGL_CUDA_ARCH=900").
std::vector<std::string> expand_nvrtc_flags(const EngineProfile& p, const std::string& arch);

// `name_or_file`: a profile name looked up as <workspace>/engines/<name>.json, or a path to a
// .json file. Throws ako::SpecError naming the file and the field.
EngineProfile load_engine_profile(const std::filesystem::path& workspace, const std::string& name_or_file);

// An engine checkout of the profile's layout holds its kernel, include and Python roots: a
// folder without them is not that engine (or needs another --engine-profile). Throws
// ako::Error naming `option` (--to, --from), the folder, the profile and what is missing.
void check_engine_layout(const EngineProfile& p, const std::filesystem::path& engine, const std::string& option);

// "{op}" -> op, "{Op}" -> op in CamelCase ("fused_norm" -> "FusedNorm").
std::string expand_op(const std::string& pattern, const std::string& op);

// The engine-relative path of a kernel file for `op` (kernel_root / kernel_file).
std::string default_kernel_path(const EngineProfile& p, const std::string& op);
std::string default_wrapper_path(const EngineProfile& p, const std::string& op);

}  // namespace ako::port
