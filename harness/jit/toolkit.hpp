#pragma once
// Where NVRTC's headers come from, and what identifies the NVRTC build and the toolkit
// headers for the cache key.
#include <filesystem>
#include <string>
#include <vector>

namespace ako::jit {

struct Toolkit {
  std::filesystem::path home;                       // e.g. /usr/local/cuda
  std::vector<std::filesystem::path> include_dirs;  // <include>, <include>/cccl
  std::string identity;                             // hex hash of what identifies its headers
};

// CompileOptions::cuda_home if set, else $AKO_CUDA_HOME, else the toolkit ako was built with.
// Throws ako::Error when cuda_bf16.h is not found under it.
Toolkit resolve_toolkit(const std::filesystem::path& requested_home);

// "13.0 (/usr/local/cuda/include)": CUDA_VERSION as the toolkit's cuda.h defines it, and the
// folder NVRTC's headers come from; "unknown" for the version when cuda.h does not say.
std::string headers_version(const Toolkit& t);

// "13.0 build-id 65be0db3..." : nvrtcVersion plus the GNU build-id of the libnvrtc this process
// has loaded. Cheap (read from memory) and exact: a different build of the library has a
// different build-id, so a cubin it made is never mistaken for one made by this build.
std::string nvrtc_identity();

}  // namespace ako::jit
