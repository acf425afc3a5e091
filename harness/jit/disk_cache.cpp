#include "jit/disk_cache.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "jit/file_io.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ako::jit {

namespace {

// Local (de)serialisation of KernelResources: the jit stage keeps its cache format to itself.
json resources_json(const KernelResources& r) {
  return {{"registers", r.registers},       {"spill_stores", r.spill_stores},
          {"spill_loads", r.spill_loads},   {"stack_bytes", r.stack_bytes},
          {"shared_bytes", r.shared_bytes}, {"barriers", r.barriers},
          {"constant_bytes", r.constant_bytes}};
}

KernelResources resources_from(const json& j) {
  KernelResources r;
  r.registers = j.at("registers").get<int>();
  r.spill_stores = j.at("spill_stores").get<int>();
  r.spill_loads = j.at("spill_loads").get<int>();
  r.stack_bytes = j.at("stack_bytes").get<int>();
  r.shared_bytes = j.at("shared_bytes").get<int>();
  r.barriers = j.at("barriers").get<int>();
  r.constant_bytes = j.at("constant_bytes").get<int>();
  return r;
}

std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool has_elf_magic(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

}  // namespace

EntryPaths entry_paths(const fs::path& dir, const std::string& key) {
  const fs::path shard = dir / key.substr(0, 2);
  return {shard / (key + ".cubin"), shard / (key + ".ptx"), shard / (key + ".json")};
}

void store_entry(const fs::path& dir, const std::string& key, const std::string& cubin, const std::string& ptx,
                 const BuildRecord& record, CompiledModule& module) {
  const auto paths = entry_paths(dir, key);
  std::error_code ec;
  fs::create_directories(paths.cubin.parent_path(), ec);
  if (ec) throw Error("cannot create cache directory " + paths.cubin.parent_path().string() + ": " + ec.message());

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
      {"ptx_bytes", ptx.size()},
      {"lowered", module.lowered},
      {"resources", resources},
      {"log", module.log},
  };
  write_file_atomic(paths.cubin, cubin);
  write_file_atomic(paths.ptx, ptx);
  write_file_atomic(paths.json, entry.dump(1));
  module.cubin = paths.cubin;
  module.ptx = paths.ptx;
  module.key = key;
}

std::optional<CompiledModule> load_entry(const fs::path& dir, const std::string& key) {
  const auto paths = entry_paths(dir, key);
  const auto text = try_read_file(paths.json);
  if (!text) return std::nullopt;
  try {
    const json entry = json::parse(*text);
    if (entry.at("format") != kCacheFormat || entry.at("key") != key) return std::nullopt;
    std::error_code ec;
    const auto size = fs::file_size(paths.cubin, ec);
    if (ec || size != entry.at("cubin_bytes").get<std::uintmax_t>() || !has_elf_magic(paths.cubin))
      return std::nullopt;
    const auto ptx_size = fs::file_size(paths.ptx, ec);
    if (ec || ptx_size != entry.at("ptx_bytes").get<std::uintmax_t>()) return std::nullopt;
    CompiledModule m;
    m.cubin = paths.cubin;
    m.ptx = paths.ptx;
    m.key = key;
    m.lowered = entry.at("lowered").get<std::map<std::string, std::string>>();
    for (const auto& [name, r] : entry.at("resources").items()) m.resources[name] = resources_from(r);
    m.log = entry.at("log").get<std::string>();
    m.compile_ms = entry.at("compile_ms").get<double>();
    m.cache_hit = true;
    return m;
  } catch (const json::exception&) {
    return std::nullopt;  // truncated or hand-edited JSON: a miss
  }
}

}  // namespace ako::jit
