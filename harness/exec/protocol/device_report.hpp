#pragma once
// The device a worker started ahead of its job sees, written by it to a file beside the job
// file as soon as the driver is up (before its context), so that ako can pick the device's
// config and arch without a cuInit of its own: two processes starting the driver at once on
// the H200 take 0.20-0.21 s where one takes 0.13 s (bench/RESULTS.md).
#include <filesystem>
#include <optional>
#include <string>

namespace ako::exec {

struct DeviceReport {
  bool ok = false;
  std::string error;         // why not ok: the worker's driver failure, in words
  int count = 0;             // visible devices
  int major = 0, minor = 0;  // device 0, the one the worker uses
  std::string name;
  int driver_version = 0;
};

// Where the worker started with `--await JOB` writes its report.
std::filesystem::path device_report_path(const std::filesystem::path& job_file);

// Atomic (the reader never sees half a file). Throws ako::Error when it cannot be written.
void write_device_report(const std::filesystem::path& file, const DeviceReport& report);

// nullopt while the file does not exist; throws ako::Error when it is not a report.
std::optional<DeviceReport> read_device_report(const std::filesystem::path& file);

}  // namespace ako::exec
