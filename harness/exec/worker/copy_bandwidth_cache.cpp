#include "exec/worker/copy_bandwidth_cache.hpp"

#include <filesystem>
#include <fstream>
#include <optional>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "measure/gpu/timer.hpp"

namespace ako::exec {

namespace fs = std::filesystem;

namespace {

fs::path cache_file(const std::string& cache_dir, const DeviceInfo& d) {
  return fs::path(cache_dir) / ("copy-bandwidth-" + d.uuid + ".json");
}

// A cached figure is trusted only for the same GPU under the same driver.
std::optional<double> read_cached(const fs::path& file, const DeviceInfo& d) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.at("uuid").get<std::string>() != d.uuid) return std::nullopt;
    if (j.at("driver_version").get<int>() != d.driver_version) return std::nullopt;
    const double gbs = j.at("copy_bandwidth_gbs").get<double>();
    if (!(gbs > 0)) return std::nullopt;
    return gbs;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable cache: measure again and overwrite
  }
}

// Written to a temporary name and renamed, so a concurrent reader never sees half a file.
// A cache that cannot be written only costs a measurement next time.
void write_cached(const fs::path& file, const DeviceInfo& d) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    if (!out) return;
    out << nlohmann::json{{"uuid", d.uuid},
                          {"name", d.name},
                          {"driver_version", d.driver_version},
                          {"copy_bandwidth_gbs", d.copy_bandwidth_gbs}}
               .dump(2)
        << "\n";
  }
  fs::rename(tmp, file, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

void attach_copy_bandwidth(DeviceInfo& device, CUstream stream, const std::string& cache_dir,
                           bool remeasure) {
  const bool use_cache = !cache_dir.empty();
  const fs::path file = use_cache ? cache_file(cache_dir, device) : fs::path();
  if (use_cache && !remeasure) {
    if (auto gbs = read_cached(file, device)) {
      device.copy_bandwidth_gbs = *gbs;
      device.copy_bandwidth_source = "cached " + file.string();
      return;
    }
  }
  device.copy_bandwidth_gbs = measure::measure_copy_bandwidth_gbs(stream);
  device.copy_bandwidth_source = "measured";
  if (use_cache) write_cached(file, device);
}

}  // namespace ako::exec
