#include "jit/cache_usage.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "jit/cache_lock.hpp"
#include "jit/disk_cache.hpp"

namespace fs = std::filesystem;

namespace ako::jit {

namespace {

bool is_shard(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();
  return name.size() == 2 && std::isxdigit(static_cast<unsigned char>(name[0])) &&
         std::isxdigit(static_cast<unsigned char>(name[1])) && e.is_directory();
}

struct FileInfo {
  fs::path path;
  unsigned long long bytes = 0;
  std::time_t mtime = 0;
};

std::optional<FileInfo> stat_file(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return FileInfo{p, static_cast<unsigned long long>(st.st_size), st.st_mtim.tv_sec};
}

// The files of one shard, grouped by the key they belong to (the name up to its first dot).
struct KeyFiles {
  std::optional<FileInfo> json;
  std::vector<FileInfo> files;  // every file of the key, JSON included
};

std::map<std::string, KeyFiles> shard_files(const fs::path& shard) {
  std::map<std::string, KeyFiles> keys;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(shard, ec)) {
    const auto info = stat_file(e.path());
    if (!info) continue;
    const std::string name = e.path().filename().string();
    KeyFiles& k = keys[name.substr(0, name.find('.'))];
    k.files.push_back(*info);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && name.find('.') == name.size() - 5)
      k.json = info;
  }
  return keys;
}

struct Scan {
  CacheUsage usage;
  std::vector<FileInfo> strays;
};

Scan scan(const fs::path& dir) {
  Scan s;
  std::error_code ec;
  s.usage.exists = fs::is_directory(dir, ec);
  if (!s.usage.exists) return s;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!is_shard(e)) {
      for (auto it = fs::recursive_directory_iterator(e.path(), ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (const auto f = stat_file(it->path())) s.usage.other_bytes += f->bytes;
      if (const auto f = stat_file(e.path())) s.usage.other_bytes += f->bytes;
      continue;
    }
    for (auto& [key, k] : shard_files(e.path())) {
      if (!k.json) {
        for (auto& f : k.files) s.strays.push_back(f);
        continue;
      }
      CacheEntryInfo info{key, 0, k.json->mtime};
      for (const auto& f : k.files) {
        const std::string name = f.path.filename().string();
        if (name == key + ".json" || name == key + ".cubin" || name == key + ".ptx") info.bytes += f.bytes;
        else s.strays.push_back(f);  // a temporary file beside a complete entry
      }
      s.usage.entry_bytes += info.bytes;
      s.usage.entries.push_back(std::move(info));
    }
  }
  for (const auto& f : s.strays) s.usage.stray_bytes += f.bytes;
  s.usage.stray_files = s.strays.size();
  std::sort(s.usage.entries.begin(), s.usage.entries.end(), [](const CacheEntryInfo& a, const CacheEntryInfo& b) {
    return a.last_used != b.last_used ? a.last_used < b.last_used : a.key < b.key;
  });
  return s;
}

}  // namespace

std::optional<unsigned long long> parse_size(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  const size_t start = pos;
  while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) ++pos;
  if (pos == start) return std::nullopt;
  double value = 0;
  try {
    size_t used = 0;
    value = std::stod(text.substr(start, pos - start), &used);
    if (used != pos - start) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit;
  for (; pos < text.size(); ++pos)
    if (!std::isspace(static_cast<unsigned char>(text[pos]))) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[pos])));
  static const std::map<std::string, int> powers = {
      {"", 0}, {"b", 0}, {"k", 1}, {"kb", 1}, {"kib", 1}, {"m", 2}, {"mb", 2}, {"mib", 2},
      {"g", 3}, {"gb", 3}, {"gib", 3}, {"t", 4}, {"tb", 4}, {"tib", 4}};
  const auto p = powers.find(unit);
  if (p == powers.end()) return std::nullopt;
  const double bytes = value * std::pow(1024.0, p->second);
  if (!(bytes >= 0) || bytes > 1.8e19) return std::nullopt;
  return static_cast<unsigned long long>(std::llround(bytes));
}

std::string format_size(unsigned long long bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  return v < 10 ? fmt::format("{:.2f} {}", v, units[u]) : fmt::format("{:.0f} {}", v, units[u]);
}

unsigned long long cache_max_bytes(const CompileOptions& opt) {
  if (opt.cache_max_bytes) return *opt.cache_max_bytes;
  const char* env = std::getenv("AKO_CACHE_MAX_SIZE");
  if (!env || !*env) return kDefaultCacheMaxBytes;
  const auto bytes = parse_size(env);
  if (!bytes)
    throw Error(std::string("$AKO_CACHE_MAX_SIZE=") + env +
                ": expected a size such as 2G, 500M or 0 (no cap), in powers of 1024");
  return *bytes;
}

std::string cache_max_source(const CompileOptions& opt) {
  if (opt.cache_max_bytes) return "--max-size";
  const char* env = std::getenv("AKO_CACHE_MAX_SIZE");
  return env && *env ? "$AKO_CACHE_MAX_SIZE" : "default";
}

CacheUsage scan_cache(const fs::path& dir) { return scan(dir).usage; }

PruneOutcome prune_cache(const fs::path& dir, unsigned long long max_bytes, std::chrono::seconds min_age) {
  PruneOutcome out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  const CacheLock lock(dir, CacheLock::Mode::exclusive);  // no entry is being written meanwhile
  Scan s = scan(dir);
  const std::time_t now = std::time(nullptr);
  const auto stale = [&](std::time_t t) { return now - t >= min_age.count(); };
  unsigned long long total = s.usage.total_bytes();
  for (const auto& f : s.strays)
    if (stale(f.mtime) && fs::remove(f.path, ec)) {
      ++out.strays_removed;
      total -= f.bytes;
    }
  for (const auto& e : s.usage.entries) {
    if (total <= max_bytes) break;
    // Touched since the scan (a hit in another process): its mtime says so.
    const auto paths = entry_paths(dir, e.key);
    const auto json = stat_file(paths.json);
    if (!json) continue;
    if (!stale(json->mtime)) {
      ++out.kept_recent;
      continue;
    }
    // JSON first: from then on the entry is a miss for every reader.
    fs::remove(paths.json, ec);
    fs::remove(paths.cubin, ec);
    fs::remove(paths.ptx, ec);
    ++out.removed;
    out.removed_bytes += e.bytes;
    total -= e.bytes;
  }
  out.bytes_after = total;
  return out;
}

}  // namespace ako::jit
