// ako-worker JOB.json: runs the cases of one worker job on the GPU and reports each as a JSON
// line on stdout (exec/protocol/job.hpp). Exit status: 0 all cases reported, 2 the job could
// not run at all ("fatal" event), 3 a case left the CUDA context unusable (its "result" line
// came out first; the parent starts a fresh worker for the remaining cases).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>

#include "common/error.hpp"
#include "exec/protocol/job.hpp"
#include "exec/worker/case_runner.hpp"
#include "exec/worker/copy_bandwidth_cache.hpp"
#include "exec/worker/cuda_session.hpp"
#include "exec/worker/device_info.hpp"
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

int run(const ako::exec::WorkerJob& job, const ako::exec::EventWriter& events) {
  using namespace ako;
  std::map<std::string, double> setup_s;
  Lap lap;
  exec::CudaSession cuda;
  setup_s["cuda_init"] = lap();
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
  const ako::exec::EventWriter events;
  if (argc != 2) {
    events.fatal("usage: ako-worker JOB.json");
    return kExitFatal;
  }
  try {
    return run(read_job(argv[1]), events);
  } catch (const std::exception& e) {  // bad job file, no device, CUDA failure outside a case
    events.fatal(e.what());
    return kExitFatal;
  }
}
