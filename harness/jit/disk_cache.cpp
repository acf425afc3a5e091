#include "jit/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "jit/cache_lock.hpp"
#include "jit/file_io.hpp"
#include "jit/resources_json.hpp"
#include "jit/sha256.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ako::jit {

namespace {

constexpr const char* kOldFormat = "ako.jit-cache/1";  // no hashes: rebuilt, not damaged

std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool has_elf_magic(const std::string& bytes) { return bytes.rfind("\x7f" "ELF", 0) == 0; }

// "" when `bytes` (nullopt: unreadable) are what the entry recorded for `what`.
std::string check_file(const char* what, const std::optional<std::string>& bytes, const json& entry,
                       const char* size_field, const char* hash_field) {
  if (!bytes) return std::string(what) + " missing";
  const auto recorded = entry.at(size_field).get<std::uintmax_t>();
  if (bytes->size() != recorded)
    return std::string(what) + " is " + std::to_string(bytes->size()) + " bytes, the entry recorded " +
           std::to_string(recorded) + " (truncated or replaced)";
  if (sha256_hex(*bytes) != entry.at(hash_field).get<std::string>())
    return std::string(what) + "'s sha256 differs from the one recorded when it was built (changed on disk)";
  return {};
}

struct Checked {
  bool absent = false;      // no entry, or one of the old format (rebuilt, not damaged)
  bool old_format = false;
  std::string damage;
  json entry;
};

Checked check(const EntryPaths& paths, const std::string& key) {
  Checked c;
  const auto text = try_read_file(paths.json);
  if (!text) {
    c.absent = true;
    return c;
  }
  try {
    c.entry = json::parse(*text);
    const std::string format = c.entry.at("format").get<std::string>();
    if (format == kOldFormat) {
      c.absent = c.old_format = true;
      return c;
    }
    if (format != kCacheFormat) {
      c.damage = "its JSON is of format " + format + ", not " + kCacheFormat;
      return c;
    }
    if (c.entry.at("key") != key) {
      c.damage = "its JSON belongs to key " + c.entry.at("key").get<std::string>();
      return c;
    }
    const auto cubin = try_read_file(paths.cubin);
    c.damage = check_file("cubin", cubin, c.entry, "cubin_bytes", "cubin_sha256");
    if (c.damage.empty() && !has_elf_magic(*cubin)) c.damage = "cubin is not an ELF file";
    if (c.damage.empty()) c.damage = check_file("PTX", try_read_file(paths.ptx), c.entry, "ptx_bytes", "ptx_sha256");
  } catch (const json::exception&) {
    c.damage = "its JSON is unreadable (truncated or edited)";
  }
  return c;
}

}  // namespace

EntryPaths entry_paths(const fs::path& dir, const std::string& key) {
  const fs::path shard = dir / key.substr(0, 2);
  return {shard / (key + ".cubin"), shard / (key + ".ptx"), shard / (key + ".json")};
}

void store_entry(const fs::path& dir, const std::string& key, const std::string& cubin, const std::string& ptx,
                 const BuildRecord& record, CompiledModule& module) {
  const auto paths = entry_paths(dir, key);
  make_directories(paths.cubin.parent_path());

  json resources = json::object();
  for (const auto& [name, r] : module.resources) resources[name] = resources_json(r);
  const json entry = {
      {"format", kCacheFormat},
      {"key", key},
      {"display_name", record.display_name},
      {"arch", record.arch},
      {"nvrtc", record.nvrtc},
      {"created", utc_now_iso()},
      {"build_pid", static_cast<long long>(getpid())},
      {"build_started_unix_ms", record.started_unix_ms},
      {"build_finished_unix_ms", record.finished_unix_ms},
      {"compile_ms", module.compile_ms},
      {"cubin_bytes", cubin.size()},
      {"cubin_sha256", sha256_hex(cubin)},
      {"ptx_bytes", ptx.size()},
      {"ptx_sha256", sha256_hex(ptx)},
      {"lowered", module.lowered},
      {"resources", resources},
      {"log", module.log},
  };
  // Exclusive: two processes that built the same key must not interleave their three files (a
  // cubin of one with the JSON of the other fails the hash check: a CI run's `ako compile`, two
  // at once on one cache, said "compiled, but its cache entry ... cannot be read back"), and
  // never while a prune removes entries.
  const CacheLock lock(dir, CacheLock::Mode::exclusive);
  write_file_atomic(paths.cubin, cubin);
  write_file_atomic(paths.ptx, ptx);
  write_file_atomic(paths.json, entry.dump(1));
  module.cubin = paths.cubin;
  module.ptx = paths.ptx;
  module.key = key;
}

LoadedEntry load_entry(const fs::path& dir, const std::string& key) {
  const auto paths = entry_paths(dir, key);
  const CacheLock lock(dir, CacheLock::Mode::shared);  // not while a writer is between its files
  Checked c = check(paths, key);
  if (c.absent || !c.damage.empty()) return {std::nullopt, c.damage};
  try {
    CompiledModule m;
    m.cubin = paths.cubin;
    m.ptx = paths.ptx;
    m.key = key;
    m.lowered = c.entry.at("lowered").get<std::map<std::string, std::string>>();
    for (const auto& [name, r] : c.entry.at("resources").items()) m.resources[name] = resources_from(r);
    m.log = c.entry.at("log").get<std::string>();
    m.compile_ms = c.entry.at("compile_ms").get<double>();
    m.cache_hit = true;
    ::utimensat(AT_FDCWD, paths.json.c_str(), nullptr, 0);  // used now (LRU); may fail read-only
    return {m, {}};
  } catch (const json::exception&) {
    return {std::nullopt, "its JSON is unreadable (truncated or edited)"};
  }
}

std::string check_entry(const fs::path& dir, const std::string& key) {
  const Checked c = check(entry_paths(dir, key), key);
  if (c.old_format) return std::string("of the old format ") + kOldFormat + " (no hashes; rebuilt when next used)";
  if (c.absent) return "JSON missing";
  return c.damage;
}

}  // namespace ako::jit
