#pragma once
// Where a task's kernel came from in the engine, and what ako wrote back: the record that lets
// `ako port` overwrite engine files only when it is safe. Stored as
// solution/<task>/provenance.json (schema ako.provenance/1).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "port/cuh_split.hpp"

namespace ako::port {

inline constexpr const char* kProvenanceSchema = "ako.provenance/1";

struct EngineFileRecord {
  std::string path;    // engine-relative
  std::string sha256;  // of the content as read or written
  std::string commit;  // engine commit it was read at (mirror) or on top of which it was written (port)
};

struct Provenance {
  std::string task;
  std::string engine_profile;       // profile name
  std::string engine_root;          // as given to mirror (for the record only)
  std::string mirrored_at;          // ISO 8601 UTC
  EngineFileRecord mirrored;        // the engine kernel mirrored into input/
  std::string verbatim_copy;        // workspace-relative copy of the mirrored file, verbatim
  std::string device_copy;          // workspace-relative device part (NVRTC-compilable)
  std::vector<HostGlue> host_glue;  // what port regenerates
  // The engine's own headers the device part compiles against (its include closure under the
  // profile's include root), with their hashes at the mirrored commit: port refuses when one
  // changed, as for the kernel itself.
  std::vector<EngineFileRecord> engine_headers;
  std::vector<std::string> nvrtc_options;    // how mirror compiled the device part (for the record)
  std::vector<EngineFileRecord> ported;      // files ako port wrote, by path (latest write)
};

std::filesystem::path provenance_path(const std::filesystem::path& workspace, const std::string& task);

void save_provenance(const std::filesystem::path& file, const Provenance& p);
// nullopt when the file does not exist; throws SpecError when it is malformed.
std::optional<Provenance> load_provenance(const std::filesystem::path& file);

// The record of a ported file, or nullptr.
const EngineFileRecord* find_ported(const Provenance& p, const std::string& path);

std::string sha256_of(const std::string& text);
std::string utc_now_iso8601();

}  // namespace ako::port
