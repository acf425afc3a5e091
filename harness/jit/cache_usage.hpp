#pragma once
// How big the kernel cache is, and keeping it under its size cap: the least recently used
// entries (the JSON's mtime, which every hit touches) go first. Entries used within
// `min_age` are never pruned, even over the cap: another ako may have looked one up and be
// about to load its cubin. Leftovers of killed writers (a cubin or PTX without its JSON,
// temporary files) older than `min_age` go too. Only the entry shards (<dir>/<2 hex>/) are
// touched; the support headers and the copy-bandwidth figures beside them are left alone.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "jit/compiler.hpp"

namespace ako::jit {

inline constexpr unsigned long long kDefaultCacheMaxBytes = 2ull << 30;  // 2 GiB
inline constexpr std::chrono::seconds kDefaultPruneMinAge{3600};

// "2G", "512M", "1.5GiB", "100k", "4096", "0": bytes, with an optional K/M/G/T suffix in powers
// of 1024 ("B", "iB" and lower case accepted). nullopt when malformed.
std::optional<unsigned long long> parse_size(const std::string& text);
std::string format_size(unsigned long long bytes);  // "1.50 GiB", "312 KiB", "17 B"

// opt.cache_max_bytes, else $AKO_CACHE_MAX_SIZE, else kDefaultCacheMaxBytes; 0 means no cap.
// Throws ako::Error naming the variable when $AKO_CACHE_MAX_SIZE is malformed.
unsigned long long cache_max_bytes(const CompileOptions& opt);
// Where the cap comes from, for reports: "--max-size", "$AKO_CACHE_MAX_SIZE" or "default".
std::string cache_max_source(const CompileOptions& opt);

struct CacheEntryInfo {
  std::string key;
  unsigned long long bytes = 0;  // cubin + PTX + JSON
  std::time_t last_used = 0;     // the JSON's mtime
};

struct CacheUsage {
  bool exists = false;
  std::vector<CacheEntryInfo> entries;     // least recently used first
  unsigned long long entry_bytes = 0;
  size_t stray_files = 0;                  // files of no complete entry (killed writers)
  unsigned long long stray_bytes = 0;
  unsigned long long other_bytes = 0;      // support headers, copy-bandwidth figures, the lock
  unsigned long long total_bytes() const { return entry_bytes + stray_bytes; }
};
CacheUsage scan_cache(const std::filesystem::path& dir);

struct PruneOutcome {
  size_t removed = 0;                  // entries
  unsigned long long removed_bytes = 0;
  size_t strays_removed = 0;
  size_t kept_recent = 0;              // entries over the cap kept because used within min_age
  unsigned long long bytes_after = 0;  // entries and strays left
};
// Removes stale strays, then entries least recently used first until the entries and strays
// left fit in max_bytes (0: every entry old enough goes), under the cache's exclusive lock.
PruneOutcome prune_cache(const std::filesystem::path& dir, unsigned long long max_bytes,
                         std::chrono::seconds min_age = kDefaultPruneMinAge);

}  // namespace ako::jit
