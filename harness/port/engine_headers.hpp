#pragma once
// The engine headers a mirrored device part is compiled against: its includes, followed
// through the engine's include root the way NVRTC resolves them (a quoted name next to the
// including file first, then the search folders in order). Headers an NVRTC overlay stands in
// for are not the engine's and end the walk there; toolkit and unresolved names are skipped.
// `ako mirror` records each one's path and hash so that `ako port` sees drift in them too.
#include <filesystem>
#include <string>
#include <vector>

namespace ako::port {

struct EngineHeader {
  std::string path;    // engine-relative, e.g. python/sglang/kernels/jit/include/sgl_kernel/vec.cuh
  std::string text;
};

// `text`: the device part (its own folder is not searched: it lives in the workspace).
// `overlays`: absolute folders searched before `include_root` (an absolute folder inside
// `engine_root`). Each header once, in the order first reached.
std::vector<EngineHeader> engine_header_closure(const std::string& text, const std::filesystem::path& engine_root,
                                                const std::filesystem::path& include_root,
                                                const std::vector<std::filesystem::path>& overlays);

}  // namespace ako::port
