#include "exec/client/worker_device.hpp"

#include <sys/wait.h>

#include <thread>

#include "common/error.hpp"
#include "exec/protocol/device_report.hpp"

namespace ako::exec {

namespace {
// True once the process has ended; it stays unreaped (WNOWAIT) for its owner to collect.
bool ended(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}
}  // namespace

std::optional<GpuProbe> probe_from_worker(const PrestartedWorker& worker, std::chrono::milliseconds timeout) {
  const auto file = device_report_path(worker.job_file);
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::optional<DeviceReport> r;
    try {
      r = read_device_report(file);
    } catch (const Error&) {
      return std::nullopt;
    }
    if (r) {
      if (!r->ok) return std::nullopt;
      GpuProbe p;
      p.available = true;
      p.count = r->count;
      p.major = r->major;
      p.minor = r->minor;
      p.name = r->name;
      p.driver_version = r->driver_version;
      return p;
    }
    if (ended(worker.child.pid()) || std::chrono::steady_clock::now() > give_up) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace ako::exec
