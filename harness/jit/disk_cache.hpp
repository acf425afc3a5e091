#pragma once
// The on-disk cache entry of one compiled program:
//   <dir>/<key[0:2]>/<key>.cubin   the cubin
//   <dir>/<key[0:2]>/<key>.ptx     the PTX it was assembled from (read by verify/static)
//   <dir>/<key[0:2]>/<key>.json    lowered names, resources, log, arch, NVRTC, when and by whom,
//                                  and the sha256 and size of the cubin and of the PTX
// Each file is written to a temporary name and renamed (cubin, PTX, then JSON last), under the
// cache's shared lock (cache_lock.hpp). Every load checks both files against the sizes and
// hashes the JSON recorded, so a bit flip, a truncation, or another kernel's cubin under the
// key is a miss, rebuilt, never run. The JSON's mtime is the entry's last use: a hit touches
// it, and the size cap prunes the least recently used first (cache_usage.hpp).
//
// What this does not defend against: someone who can write the cache and rewrites an entry's
// JSON to match a cubin of their own (the key hashes the inputs, not the output; no secret
// signs an entry). The cache is the user's, like the ako binary beside it.
#include <filesystem>
#include <optional>
#include <string>

#include "jit/compiler.hpp"

namespace ako::jit {

inline constexpr const char* kCacheFormat = "ako.jit-cache/2";  // /2: sha256 of cubin and PTX

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
// Throws WriteError (file_io.hpp) naming the path when the directory cannot be written.
void store_entry(const std::filesystem::path& dir, const std::string& key, const std::string& cubin,
                 const std::string& ptx,
                 const BuildRecord& record, CompiledModule& module);

// A lookup: the module of a complete, intact entry (cache_hit = true; compile_ms as recorded
// when it was built, which a caller reporting a hit sets to 0), or none. `damage` says why an
// entry that exists was refused: JSON unparsable or of another format or key, cubin or PTX
// missing, of another size than recorded (truncated), not ELF, or whose sha256 differs from
// the recorded one (a flipped bit, another kernel's cubin). An absent entry has no damage.
struct LoadedEntry {
  std::optional<CompiledModule> module;
  std::string damage;
};

// Loads and checks the entry; a hit marks it used now (the JSON's mtime; a read-only cache
// stays as it is). Entries of format /1 (no hashes) are misses without damage: rebuilt once.
LoadedEntry load_entry(const std::filesystem::path& dir, const std::string& key);

// The check alone, on an entry's files: "" when intact, else its damage as above, "JSON
// missing", or "of the old format ..." (an entry of /1, never loaded again). Never touches the
// entry.
std::string check_entry(const std::filesystem::path& dir, const std::string& key);

}  // namespace ako::jit
