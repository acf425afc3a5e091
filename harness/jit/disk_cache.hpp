#pragma once
// The on-disk cache entry of one compiled program:
//   <dir>/<key[0:2]>/<key>.cubin   the cubin
//   <dir>/<key[0:2]>/<key>.ptx     the PTX it was assembled from (read by verify/static)
//   <dir>/<key[0:2]>/<key>.json    lowered names, resources, log, arch, NVRTC, when and by whom
// The cubin is written first and the JSON last, each by an atomic rename, so an entry whose
// JSON is present is complete unless something later damaged it; load_entry checks that.
#include <filesystem>
#include <optional>
#include <string>

#include "jit/compiler.hpp"

namespace ako::jit {

inline constexpr const char* kCacheFormat = "ako.jit-cache/1";

struct EntryPaths {
  std::filesystem::path cubin, ptx, json;
};
EntryPaths entry_paths(const std::filesystem::path& dir, const std::string& key);

// What a fresh compile adds to the JSON besides the module itself.
struct BuildRecord {
  std::string display_name;
  std::string arch;
  std::string nvrtc;            // nvrtc_identity()
  long long started_unix_ms = 0;
  long long finished_unix_ms = 0;
};

// Writes the entry (cubin and PTX, then JSON) and points module.cubin, .ptx and .key at it.
void store_entry(const std::filesystem::path& dir, const std::string& key, const std::string& cubin,
                 const std::string& ptx,
                 const BuildRecord& record, CompiledModule& module);

// The module of a complete entry (cache_hit = true; compile_ms as recorded when it was
// built, which a caller reporting a hit sets to 0), or nullopt when the entry is absent or
// damaged: JSON missing or unparsable, wrong format or key, cubin missing, not ELF, or not the
// size the JSON recorded, PTX missing or not the size recorded (entries written before the PTX
// was kept have no "ptx_bytes": a miss, rebuilt once). A damaged entry is simply a miss; the next store overwrites it.
std::optional<CompiledModule> load_entry(const std::filesystem::path& dir, const std::string& key);

}  // namespace ako::jit
