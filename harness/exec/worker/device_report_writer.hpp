#pragma once
// The worker's side of exec/protocol/device_report.hpp: starts the driver, reads device 0 and
// writes the report; on a driver failure writes the failure instead and rethrows it.
#include <filesystem>

namespace ako::exec {

void report_device_early(const std::filesystem::path& file);

}  // namespace ako::exec
