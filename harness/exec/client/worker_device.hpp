#pragma once
// The GPU as a worker started ahead of its job reports it (exec/protocol/device_report.hpp),
// in place of ako's own probe: its cuInit would run beside the worker's and slow both.
#include <chrono>
#include <optional>

#include "exec/client/gpu_probe.hpp"
#include "exec/client/worker_client.hpp"

namespace ako::exec {

// Waits for the worker's report, at most `timeout`. nullopt when the worker's driver failed,
// the worker ended first, the report is unreadable or late: the caller asks probe_gpu(), whose
// answer (and reason) then stands.
std::optional<GpuProbe> probe_from_worker(const PrestartedWorker& worker, std::chrono::milliseconds timeout);

}  // namespace ako::exec
