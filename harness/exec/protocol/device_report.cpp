#include "exec/protocol/device_report.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace ako::exec {

std::filesystem::path device_report_path(const std::filesystem::path& job_file) {
  return std::filesystem::path(job_file).concat(".device");
}

void write_device_report(const std::filesystem::path& file, const DeviceReport& r) {
  const nlohmann::json j = {{"ok", r.ok},       {"error", r.error}, {"count", r.count},
                            {"major", r.major}, {"minor", r.minor}, {"name", r.name},
                            {"driver_version", r.driver_version}};
  write_file_atomically(file, j.dump() + "\n");
}

std::optional<DeviceReport> read_device_report(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    DeviceReport r;
    r.ok = j.at("ok").get<bool>();
    r.error = j.at("error").get<std::string>();
    r.count = j.at("count").get<int>();
    r.major = j.at("major").get<int>();
    r.minor = j.at("minor").get<int>();
    r.name = j.at("name").get<std::string>();
    r.driver_version = j.at("driver_version").get<int>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": not a worker's device report (" + e.what() + ")");
  }
}

}  // namespace ako::exec
