#include "port/provenance.hpp"

#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "jit/sha256.hpp"

namespace ako::port {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EngineFileRecord, path, sha256, commit)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HostGlue, kind, name, template_header, entry, first_line, last_line)

std::filesystem::path provenance_path(const std::filesystem::path& workspace, const std::string& task) {
  return workspace / "solution" / task / "provenance.json";
}

std::string sha256_of(const std::string& text) { return jit::sha256_hex(text); }

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void save_provenance(const std::filesystem::path& file, const Provenance& p) {
  nlohmann::json j;  // keys sorted: stable diffs of the record
  j["schema"] = kProvenanceSchema;
  j["task"] = p.task;
  j["engine_profile"] = p.engine_profile;
  j["engine_root"] = p.engine_root;
  j["mirrored_at"] = p.mirrored_at;
  j["mirrored"] = p.mirrored;
  j["verbatim_copy"] = p.verbatim_copy;
  j["device_copy"] = p.device_copy;
  j["host_glue"] = p.host_glue;
  j["engine_headers"] = p.engine_headers;
  j["nvrtc_options"] = p.nvrtc_options;
  j["ported"] = p.ported;
  std::filesystem::create_directories(file.parent_path());
  write_file_atomically(file, j.dump(2) + "\n");
}

std::optional<Provenance> load_provenance(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(read_file(file));
    if (j.value("schema", "") != kProvenanceSchema)
      throw SpecError(file.string(), "schema", std::string("expected \"") + kProvenanceSchema + "\"; re-run ako mirror");
    Provenance p;
    p.task = j.at("task").get<std::string>();
    p.engine_profile = j.at("engine_profile").get<std::string>();
    p.engine_root = j.value("engine_root", "");
    p.mirrored_at = j.value("mirrored_at", "");
    p.mirrored = j.at("mirrored").get<EngineFileRecord>();
    p.verbatim_copy = j.value("verbatim_copy", "");
    p.device_copy = j.value("device_copy", "");
    p.host_glue = j.value("host_glue", std::vector<HostGlue>{});
    p.engine_headers = j.value("engine_headers", std::vector<EngineFileRecord>{});
    p.nvrtc_options = j.value("nvrtc_options", std::vector<std::string>{});
    p.ported = j.value("ported", std::vector<EngineFileRecord>{});
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(file.string(), "$", std::string("malformed provenance (") + e.what() + "); re-run ako mirror");
  }
}

const EngineFileRecord* find_ported(const Provenance& p, const std::string& path) {
  for (const auto& r : p.ported)
    if (r.path == path) return &r;
  return nullptr;
}

}  // namespace ako::port
