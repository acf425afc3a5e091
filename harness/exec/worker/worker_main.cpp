// ako-worker [--await] JOB.json: runs the cases of one worker job on the GPU and reports each as
// a JSON line on stdout (exec/protocol/job.hpp). Exit status: 0 all cases reported, 2 the job
// could not run at all ("fatal" event), 3 a case left the CUDA context unusable (its "result"
// line came out first; the parent starts a fresh worker for the remaining cases).
// --await: started before the job exists (exec/client/worker_client.hpp, PrestartedWorker), it
// starts the driver, writes what device it sees to JOB.json.device (exec/protocol/device_report.hpp),
// creates its context, then waits for JOB.json to appear; it leaves quietly when its parent goes
// away first.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "common/error.hpp"
#include "exec/protocol/ancestor_watch.hpp"
#include "exec/protocol/job.hpp"
#include "exec/worker/case_runner.hpp"
#include "exec/worker/copy_bandwidth_cache.hpp"
#include "exec/worker/cuda_session.hpp"
#include "exec/worker/device_info.hpp"
#include "exec/worker/device_report_writer.hpp"
#include "exec/protocol/device_report.hpp"
#include "exec/worker/event_writer.hpp"
#include "exec/worker/module_cache.hpp"
#include "measure/gpu/timer.hpp"
#include "verify/gpu/support_launcher.hpp"

namespace {

constexpr int kExitFatal = 2;
constexpr int kExitStickyFault = 3;

ako::exec::WorkerJob read_job(const char* path) {
  std::ifstream in(path);
  if (!in) throw ako::Error(std::string("cannot read worker job '") + path + "'");
  try {
    return nlohmann::json::parse(in).get<ako::exec::WorkerJob>();
  } catch (const nlohmann::json::exception& e) {
    throw ako::Error(std::string("worker job '") + path + "': " + e.what());
  }
}

bool any_case_timed(const ako::exec::WorkerJob& job) {
  for (const auto& c : job.cases)
    if (c.time) return true;
  return false;
}

// Seconds since the last call (the first: since construction), for the start-up steps.
class Lap {
 public:
  double operator()() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Until `path` exists (the parent renames it into place when it is complete); false when the
// parent went away first, or after kAwaitLimit.
constexpr auto kAwaitLimit = std::chrono::minutes(30);
bool await_file(const char* path) {
  const pid_t parent = getppid();
  const auto give_up = std::chrono::steady_clock::now() + kAwaitLimit;
  struct stat st {};
  while (stat(path, &st) != 0) {
    if (getppid() != parent || std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(250));
  }
  return true;
}

int run(const char* job_path, bool await, const ako::exec::EventWriter& events) {
  using namespace ako;
  std::map<std::string, double> setup_s;
  Lap lap;
  // A job that cannot be read is reported before the driver starts, unless the worker was
  // started ahead of its job.
  std::optional<exec::WorkerJob> read;
  if (!await) read = read_job(job_path);
  // Started ahead of its job: ako waits for this report to choose the config and the arch.
  if (await) exec::report_device_early(exec::device_report_path(job_path));
  exec::CudaSession cuda;
  setup_s["cuda_init"] = lap();
  if (await) {
    if (!await_file(job_path)) return 0;
    setup_s["await_job"] = lap();
    read = read_job(job_path);
  }
  const exec::WorkerJob& job = *read;
  DeviceInfo device = exec::describe_device(cuda);
  setup_s["describe_device"] = lap();
  exec::attach_copy_bandwidth(device, cuda.stream(), job.cache_dir, job.remeasure_bandwidth);
  setup_s["copy_bandwidth"] = lap();

  std::string timer_note;
  std::unique_ptr<measure::Timer> timer;
  if (any_case_timed(job))
    timer = measure::make_timer(job.timing, static_cast<size_t>(device.l2_bytes), &timer_note);
  setup_s["timer"] = lap();
  events.device(device, timer_note, setup_s);

  exec::ModuleCache modules;
  verify::SupportKernels support(
      [&](const std::string& key) {
        auto it = job.support.functions.find(key);
        if (it == job.support.functions.end())
          throw Error("the job's support module lists no kernel for '" + key + "'");
        return modules.function(job.support.module, it->second);
      },
      device.sm_count);

  if (timer) {
    timer->set_clock_probe([&](CUstream s) { return support.clock_mhz(s); }, device.rated_sm_clock_mhz);
    if (job.timing.l2_flush == "read") timer->set_l2_evict_kernel(support.l2_evict_function());
  }

  exec::RunnerSettings settings;
  settings.timing = job.timing;
  settings.launch_limit = job.launch_limit;
  settings.max_input_sets = job.max_input_sets;
  settings.l2_bytes = static_cast<uint64_t>(device.l2_bytes);
  exec::CaseRunner runner(cuda, modules, support, timer.get(), settings, events);
  for (const exec::CaseJob& c : job.cases) {
    // Exit without unwinding: after a sticky fault, CUDA and CUPTI teardown can only fail.
    if (runner.run(c).sticky) std::_Exit(kExitStickyFault);
  }
  // Every case is reported (each event flushed as written) and nothing is kept: the process's
  // end releases the context, the modules and the memory, so the teardown (CUPTI's last flush,
  // the unloads, the context's destruction) is skipped; the parent, which waits for the exit,
  // goes on sooner (0.05 against 0.08 s on the H200).
  std::fflush(stdout);
  std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  // Under compute-sanitizer the worker is ako's grandchild, beyond PR_SET_PDEATHSIG's reach: it
  // ends with the ako that started it (exec/protocol/ancestor_watch.hpp).
  ako::exec::exit_with_ancestor("ako-worker", 128 + SIGKILL, false);
  const ako::exec::EventWriter events;
  const bool await = argc == 3 && std::string(argv[1]) == "--await";
  if (argc != 2 && !await) {
    events.fatal("usage: ako-worker [--await] JOB.json");
    return kExitFatal;
  }
  try {
    return run(argv[argc - 1], await, events);
  } catch (const std::exception& e) {  // bad job file, no device, CUDA failure outside a case
    events.fatal(e.what());
    return kExitFatal;
  }
}
